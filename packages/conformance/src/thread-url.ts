/** The built thread module of the thread-handler scenario (the same path from `src/` and from `dist/`). */
export function threadHandlerUrl(): URL {
  return new URL('../dist/thread-handler.mjs', import.meta.url);
}
