/**
 * The lines of text a PDF shows, read back from its bytes, so that a test can assert what the
 * signers of a rendered contract read (not only that it is a PDF with the right digest).
 *
 * Written here rather than taken from a PDF library because the contract comes from pdfkit
 * (src/guarantees/documents/contract-pdf.ts) with its standard fonts only, which makes reading it
 * back small: every content stream is FlateDecode-compressed (inflated with node:zlib), each line
 * is one text object (`BT` ... `ET`) whose strings, hex `<...>` or literal `(...)`, hold
 * WinAnsiEncoding codes (windows-1252). Kerning numbers between the strings of a `TJ` array are
 * not spaces. A line that pdfkit wraps comes back as two lines. Embedded fonts (glyph ids instead
 * of character codes) are not supported: the contract uses none.
 */
import { inflateSync } from 'node:zlib';

const WIN_ANSI = new TextDecoder('windows-1252');
const TEXT_OBJECT = /\bBT\b([\s\S]*?)\bET\b/g;
const STRING = /<([0-9A-Fa-f\s]*)>|\(((?:\\[\s\S]|[^\\)])*)\)/g;
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' };

/** Each text object's characters, in the order drawn, trimmed; empty ones left out. */
export function pdfTextLines(pdf: Buffer): string[] {
  const lines: string[] = [];
  for (const content of contentStreams(pdf)) {
    for (const [, operators] of content.matchAll(TEXT_OBJECT)) {
      const codes: number[] = [];
      for (const [, hex, literal] of operators!.matchAll(STRING)) {
        codes.push(...(hex !== undefined ? hexCodes(hex) : literalCodes(literal!)));
      }
      const line = WIN_ANSI.decode(Uint8Array.from(codes)).trim();
      if (line !== '') lines.push(line);
    }
  }
  return lines;
}

/** Every stream's bytes, inflated when its dictionary says FlateDecode, as latin1 text (one char a byte). */
function contentStreams(pdf: Buffer): string[] {
  const text = pdf.toString('latin1');
  const streams: string[] = [];
  const stream = />>\s*stream\r?\n/g;
  for (let match = stream.exec(text); match; match = stream.exec(text)) {
    const dictionary = text.slice(text.lastIndexOf(' obj', match.index), match.index);
    const start = match.index + match[0].length;
    const end = text.indexOf('endstream', start);
    const bytes = pdf.subarray(start, end);
    streams.push((/\/FlateDecode\b/.test(dictionary) ? inflateSync(bytes) : bytes).toString('latin1'));
    // Go on after the stream: its compressed bytes may hold anything, `>> stream` too.
    stream.lastIndex = end;
  }
  return streams;
}

function hexCodes(hex: string): number[] {
  const digits = hex.replace(/\s/g, '');
  // An odd count means a final 0 (PDF 32000-1, 7.3.4.3).
  const even = digits.length % 2 === 0 ? digits : `${digits}0`;
  return [...Buffer.from(even, 'hex')];
}

function literalCodes(literal: string): number[] {
  const decoded = literal.replace(/\\([0-7]{1,3}|\r\n|[\s\S])/g, (_, escaped: string) => {
    if (/^[0-7]/.test(escaped)) return String.fromCharCode(parseInt(escaped, 8) & 0xff);
    if (escaped === '\n' || escaped === '\r\n' || escaped === '\r') return '';
    return ESCAPES[escaped] ?? escaped;
  });
  return [...Buffer.from(decoded, 'latin1')];
}
