/**
 * What a JSON Schema `pattern` says about the length and the bytes of the strings it accepts, for
 * the worst-case answer sizes (answer-size.ts). Only a pattern anchored at both ends (`^...$` on
 * every top-level alternative) bounds anything: an unanchored one (`\S`, "somewhere a non-space")
 * accepts any text around its match. Of an anchored pattern:
 * - its longest match, or Infinity when a repetition is unbounded (`*`, `+`, `{n,}`);
 * - the most bytes one of its characters can take in JSON: 1 when every character it accepts is
 *   printable ASCII other than `"` and `\`, 2 when those two may occur (JSON escapes them as `\"`
 *   and `\\`), 6 otherwise (a control character is written `\u00XX`; any other character takes at
 *   most 4 bytes of UTF-8).
 * The parser knows the ECMAScript syntax the documents use (classes, escapes, groups, lookarounds,
 * alternatives, quantifiers); anything it does not know counts as unbounded, never as bounded.
 */
export interface PatternBound {
  /** Longest match in characters (code points), Infinity when not bounded. */
  maxChars: number;
  /** Most bytes one character of a match takes in JSON: 1, 2 or 6. */
  bytesPerChar: 1 | 2 | 6;
}

const UNBOUNDED: PatternBound = { maxChars: Infinity, bytesPerChar: 6 };

interface Node {
  maxChars: number;
  bytesPerChar: 1 | 2 | 6;
}

export function patternBound(pattern: string): PatternBound {
  try {
    const parser = new Parser(pattern);
    const alternatives = parser.alternatives();
    if (parser.at < pattern.length) return UNBOUNDED;
    if (!alternatives.every((alternative) => alternative.anchoredStart && alternative.anchoredEnd)) return UNBOUNDED;
    return {
      maxChars: Math.max(...alternatives.map((alternative) => alternative.node.maxChars)),
      bytesPerChar: widest(alternatives.map((alternative) => alternative.node.bytesPerChar)),
    };
  } catch {
    return UNBOUNDED;
  }
}

function widest(values: Array<1 | 2 | 6>): 1 | 2 | 6 {
  return values.reduce<1 | 2 | 6>((most, value) => (value > most ? value : most), 1);
}

/** The bytes of one character of a set of code point ranges. */
function bytesOfRanges(ranges: Array<[number, number]>): 1 | 2 | 6 {
  let most: 1 | 2 | 6 = 1;
  for (const [low, high] of ranges) {
    if (low < 0x20 || high > 0x7e) return 6;
    if ((low <= 0x22 && high >= 0x22) || (low <= 0x5c && high >= 0x5c)) most = 2;
  }
  return most;
}

const DIGITS: Array<[number, number]> = [[0x30, 0x39]];
const WORD: Array<[number, number]> = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
const ANY: Array<[number, number]> = [[0, 0x10ffff]];

class Parser {
  at = 0;
  constructor(private readonly source: string) {}

  /** Top-level alternatives, with whether each is anchored at its start and end. */
  alternatives(): Array<{ node: Node; anchoredStart: boolean; anchoredEnd: boolean }> {
    const found = [];
    for (;;) {
      const start = this.at;
      const node = this.sequence();
      const text = this.source.slice(start, this.at);
      found.push({ node, anchoredStart: text.startsWith('^'), anchoredEnd: text.endsWith('$') && !text.endsWith('\\$') });
      if (this.source[this.at] !== '|') return found;
      this.at++;
    }
  }

  /** Alternatives inside a group: the longest and the widest of them. */
  private disjunction(): Node {
    const nodes = [this.sequence()];
    while (this.source[this.at] === '|') {
      this.at++;
      nodes.push(this.sequence());
    }
    return { maxChars: Math.max(...nodes.map((node) => node.maxChars)), bytesPerChar: widest(nodes.map((node) => node.bytesPerChar)) };
  }

  private sequence(): Node {
    let maxChars = 0;
    const bytes: Array<1 | 2 | 6> = [1];
    while (this.at < this.source.length && this.source[this.at] !== '|' && this.source[this.at] !== ')') {
      const atom = this.atom();
      const times = this.quantifier();
      maxChars += atom.maxChars === 0 ? 0 : atom.maxChars * times;
      if (atom.maxChars > 0) bytes.push(atom.bytesPerChar);
    }
    return { maxChars, bytesPerChar: widest(bytes) };
  }

  /** The most times the preceding atom may repeat. */
  private quantifier(): number {
    const next = this.source[this.at];
    let times = 1;
    if (next === '*' || next === '+') {
      this.at++;
      times = Infinity;
    } else if (next === '?') {
      this.at++;
    } else if (next === '{') {
      const match = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at));
      if (!match) throw new Error('not a quantifier');
      this.at += match[0].length;
      times = match[2] === undefined ? Number(match[1]) : match[3] === '' ? Infinity : Number(match[3]);
    } else {
      return 1;
    }
    if (this.source[this.at] === '?') this.at++; // lazy: the same bound
    return times;
  }

  private atom(): Node {
    const char = this.source[this.at]!;
    if (char === '^' || char === '$') {
      this.at++;
      return { maxChars: 0, bytesPerChar: 1 };
    }
    if (char === '(') {
      this.at++;
      let lookaround = false;
      if (this.source.startsWith('?:', this.at)) this.at += 2;
      else if (/^\?<?[=!]/.test(this.source.slice(this.at))) {
        lookaround = true;
        this.at += this.source[this.at + 1] === '<' ? 3 : 2;
      } else if (this.source.startsWith('?<', this.at)) this.at = this.source.indexOf('>', this.at) + 1;
      const inner = this.disjunction();
      if (this.source[this.at] !== ')') throw new Error('unclosed group');
      this.at++;
      return lookaround ? { maxChars: 0, bytesPerChar: 1 } : inner;
    }
    if (char === '[') return this.characterClass();
    if (char === '.') {
      this.at++;
      return { maxChars: 1, bytesPerChar: 6 };
    }
    if (char === '\\') {
      const { ranges, zeroWidth } = this.escape();
      return zeroWidth ? { maxChars: 0, bytesPerChar: 1 } : { maxChars: 1, bytesPerChar: bytesOfRanges(ranges) };
    }
    if ('*+?{}|)'.includes(char)) throw new Error(`unexpected ${char}`);
    const codePoint = this.source.codePointAt(this.at)!;
    this.at += codePoint > 0xffff ? 2 : 1;
    return { maxChars: 1, bytesPerChar: bytesOfRanges([[codePoint, codePoint]]) };
  }

  /** An escape after `\`: the characters it stands for. */
  private escape(): { ranges: Array<[number, number]>; zeroWidth?: boolean } {
    this.at++;
    const char = this.source[this.at]!;
    this.at++;
    if (char === 'd') return { ranges: DIGITS };
    if (char === 'w') return { ranges: WORD };
    if (char === 'b' || char === 'B') return { ranges: [], zeroWidth: true };
    if ('DWsSpP'.includes(char)) {
      if ((char === 'p' || char === 'P') && this.source[this.at] === '{') this.at = this.source.indexOf('}', this.at) + 1;
      return { ranges: ANY };
    }
    if (char === 'u' || char === 'x') {
      const match = (char === 'u' ? /^(?:\{([0-9a-fA-F]+)\}|([0-9a-fA-F]{4}))/ : /^()([0-9a-fA-F]{2})/).exec(this.source.slice(this.at));
      if (!match) throw new Error('bad escape');
      this.at += match[0].length;
      const codePoint = parseInt(match[1] ?? match[2]!, 16);
      return { ranges: [[codePoint, codePoint]] };
    }
    const controls: Record<string, number> = { n: 10, r: 13, t: 9, f: 12, v: 11, '0': 0 };
    if (char in controls) return { ranges: [[controls[char]!, controls[char]!]] };
    const codePoint = char.codePointAt(0)!;
    return { ranges: [[codePoint, codePoint]] };
  }

  private characterClass(): Node {
    this.at++;
    if (this.source[this.at] === '^') {
      // A negated class accepts everything it does not list: any character.
      const end = this.closingBracket();
      this.at = end + 1;
      return { maxChars: 1, bytesPerChar: 6 };
    }
    const ranges: Array<[number, number]> = [];
    while (this.source[this.at] !== ']') {
      if (this.at >= this.source.length) throw new Error('unclosed class');
      const low = this.classMember();
      if (this.source[this.at] === '-' && this.source[this.at + 1] !== ']' && low.length === 1 && low[0]![0] === low[0]![1]) {
        this.at++;
        const high = this.classMember();
        if (high.length !== 1 || high[0]![0] !== high[0]![1]) throw new Error('bad range');
        ranges.push([low[0]![0], high[0]![0]]);
      } else {
        ranges.push(...low);
      }
    }
    this.at++;
    return { maxChars: 1, bytesPerChar: bytesOfRanges(ranges) };
  }

  private classMember(): Array<[number, number]> {
    if (this.source.startsWith('\\b', this.at)) {
      this.at += 2;
      return [[8, 8]]; // a backspace inside a class
    }
    if (this.source[this.at] === '\\') return this.escape().ranges;
    const codePoint = this.source.codePointAt(this.at)!;
    this.at += codePoint > 0xffff ? 2 : 1;
    return [[codePoint, codePoint]];
  }

  private closingBracket(): number {
    for (let index = this.at; index < this.source.length; index++) {
      if (this.source[index] === '\\') index++;
      else if (this.source[index] === ']') return index;
    }
    throw new Error('unclosed class');
  }
}
