// The admin API's document as the browser build bundles it (packages/sandbox/build.mjs parses the YAML into JSON).
declare module '*.yaml' {
  const document: Record<string, unknown>;
  export default document;
}
