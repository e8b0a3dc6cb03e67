import escapeHtml from 'escape-html';

/** Markup already escaped (or written by this package): interpolated into {@link html} as is. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

/**
 * A tagged template for markup: every interpolated value is escaped for HTML text and quoted
 * attributes, except an {@link Html} (the result of another `html` call), which is kept. Arrays are
 * joined; null, undefined and false render as nothing. A value from a row (payload, group, error,
 * id) is therefore never markup, whatever it holds.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? '');
  return new Html(out);
}

function render(v: unknown): string {
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false) return '';
  return escapeHtml(String(v));
}
