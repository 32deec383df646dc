// The completion templates are imported as text: esbuild's text loader in scripts/build.mjs, a
// small plugin in vitest.config.ts.
declare module '*.bash' {
  const text: string;
  export default text;
}
declare module '*.zsh' {
  const text: string;
  export default text;
}
declare module '*.fish' {
  const text: string;
  export default text;
}
