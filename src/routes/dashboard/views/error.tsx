import { Alerts, Layout, type PageContext } from "./layout";

export function ErrorPage(props: { page: PageContext; title: string; message: string; requestId?: string }) {
  return (
    <Layout title={props.title} page={props.page}>
      <h1>{props.title}</h1>
      <Alerts error={props.message} />
      {props.requestId ? <p class="muted">Request id: <code>{props.requestId}</code></p> : null}
      <p>
        <a href="/dashboard">Back to the dashboard</a>
      </p>
    </Layout>
  );
}
