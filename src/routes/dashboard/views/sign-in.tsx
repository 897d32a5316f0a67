import { Alerts, Layout, type PageContext } from "./layout";

export function SignInPage(props: { page: PageContext; error?: string; notice?: string }) {
  return (
    <Layout title="Sign in" page={props.page}>
      <h1>Sign in</h1>
      <Alerts error={props.error} notice={props.notice} />
      <p>Sign in with the service's admin token to manage every project, or with a project's secret key to manage that project.</p>
      <form class="stack" method="post" action="/dashboard/sign-in">
        <div>
          <label for="credential">Admin token or secret key</label>
          <input id="credential" name="credential" type="password" autocomplete="off" required size={60} />
        </div>
        <button type="submit">Sign in</button>
      </form>
    </Layout>
  );
}
