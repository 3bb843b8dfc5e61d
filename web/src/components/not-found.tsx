import { href } from "../router.js";

/** A page for what does not exist (an unknown route, a deleted run): says so, and offers a way back. */
export function NotFound(props: { title: string; message: string }) {
  return (
    <div className="page not-found" data-testid="not-found">
      <h1>{props.title}</h1>
      <p>{props.message}</p>
      <p className="not-found-links">
        <a className="button" href={href({ page: "runs" })}>
          ← All runs
        </a>{" "}
        <a className="button" href={href({ page: "playground" })}>
          Playground
        </a>
      </p>
    </div>
  );
}

/** What a page shows when its request failed: "not found" with a way back, else the error. */
export function LoadFailure(props: { error: string; code: string | null; what: string }) {
  if (props.code !== null && (props.code.endsWith("_not_found") || props.code.startsWith("unknown_")))
    return <NotFound title={`${props.what} not found`} message={props.error} />;
  return (
    <div className="page">
      <p className="error-text" role="alert">
        {props.error}
      </p>
      <p>
        <a href={href({ page: "runs" })}>← All runs</a>
      </p>
    </div>
  );
}
