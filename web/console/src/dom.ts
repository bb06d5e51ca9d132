/** A small element builder: the console's screens are built with it (no framework, no inline HTML). */
type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | ((event: Event) => void) | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, '').toLowerCase(), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces the main region's content and moves focus there (screen readers hear the new screen). */
export function show(title: string, ...children: Child[]): HTMLElement {
  const main = document.getElementById('main')!;
  main.replaceChildren(h('h1', {}, title));
  append(main, children);
  document.title = `${title} — Console`;
  main.focus();
  return main;
}

/** A region that announces what it is given (errors and confirmations). */
export function statusLine(): HTMLParagraphElement & { say(text: string, kind?: 'error' | 'notice'): void } {
  const line = h('p', { role: 'status', 'aria-live': 'polite' }) as HTMLParagraphElement & { say(text: string, kind?: 'error' | 'notice'): void };
  line.say = (text, kind = 'notice') => {
    line.className = kind;
    line.textContent = text;
  };
  return line;
}

export function table(headers: string[], rows: Child[][], caption?: string): HTMLTableElement {
  return h(
    'table',
    {},
    caption ? h('caption', { class: 'hint' }, caption) : null,
    h('thead', {}, h('tr', {}, ...headers.map((header) => h('th', { scope: 'col' }, header)))),
    h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((cell) => h('td', {}, cell))))),
  );
}
