import type { ProjectView } from "../../../services/projects";
import { Alerts, CsrfField, Layout, type PageContext } from "./layout";

export function ProjectsPage(props: { page: PageContext; projects: ProjectView[]; error?: string; notice?: string; name?: string }) {
  return (
    <Layout title="Projects" page={props.page}>
      <h1>Projects</h1>
      <Alerts error={props.error} notice={props.notice} />
      <section aria-labelledby="create-project">
        <h2 id="create-project">Create a project</h2>
        <form class="stack" method="post" action="/dashboard/projects">
          <CsrfField csrf={props.page.csrf} />
          <div>
            <label for="project-name">Project name</label>
            <input id="project-name" name="name" type="text" required maxlength={200} value={props.name ?? ""} />
          </div>
          <button type="submit">Create project</button>
        </form>
      </section>
      <section aria-labelledby="all-projects">
        <h2 id="all-projects">All projects ({props.projects.length})</h2>
        {props.projects.length === 0 ? (
          <p>No projects yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Id</th>
                <th scope="col">Wallet</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {props.projects.map((project) => (
                <tr>
                  <td>
                    <a href={`/dashboard/projects/${project.id}`}>{project.name}</a>
                  </td>
                  <td>
                    <code>{project.id}</code>
                  </td>
                  <td>
                    <code>{project.walletAddress}</code>
                  </td>
                  <td>{project.createdAt}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </Layout>
  );
}
