/**
 * How a setting (one environment variable) is declared, so that its one declaration in config.ts
 * gives all three things that used to be kept by hand: the `Config` type, the JSON schema the
 * values are validated against (Ajv coerces numbers and applies defaults), and the row of
 * docs/configuration.md (`make generate` writes it, `make check` fails when it is out of date).
 */

/** One setting: its value's schema, its default and what it means. `T` is its value, `Optional` true when it has no default. */
export interface Setting<T, Optional extends boolean> {
  readonly schema: Record<string, unknown>;
  readonly default?: T;
  /** What it means and does (Markdown; the docs' table cell). */
  readonly meaning: string;
  /** What an unset setting without a default means (`embedded`, `each host counts alone`). */
  readonly unset?: string;
  /** Said beside the default in the docs (`true` with `make start`). */
  readonly note?: string;
  /** The values it accepts, as the docs say them (derived from the schema unless given). */
  readonly accepts: string;
  /** Types only: never set. */
  readonly valueType?: T;
  readonly optional?: Optional;
}

/** A setting with a default: always present in the configuration. */
export type DefaultedSetting<T> = Setting<T, false> & { readonly default: T };
export type AnySetting = Setting<unknown, boolean>;
export type Settings = Record<string, AnySetting>;

type ValueOf<S> = S extends Setting<infer T, boolean> ? T : never;
type Flatten<T> = { [K in keyof T]: T[K] };

/** The validated configuration of a declaration: settings with a default are always present, the others optional. */
export type ConfigOf<S extends Settings> = Flatten<
  { -readonly [K in keyof S as S[K] extends Setting<unknown, false> ? K : never]: ValueOf<S[K]> } & {
    -readonly [K in keyof S as S[K] extends Setting<unknown, true> ? K : never]?: ValueOf<S[K]>;
  }
>;

interface Described {
  meaning: string;
  note?: string;
}
type WithDefault<T> = Described & { default: T };
type WithoutDefault = Described & { unset: string };

const numberText = (value: number) => value.toLocaleString('en-US');

export function integer(options: WithDefault<number> & { min: number; max: number }): DefaultedSetting<number>;
export function integer(options: WithoutDefault & { min: number; max: number }): Setting<number, true>;
export function integer(options: (WithDefault<number> | WithoutDefault) & { min: number; max: number }): AnySetting {
  const { min, max, ...described } = options;
  return { ...described, schema: { type: 'integer', minimum: min, maximum: max }, accepts: `integer, ${numberText(min)} to ${numberText(max)}` };
}

export function choice<const V extends string>(values: readonly V[], options: WithDefault<NoInfer<V>>): DefaultedSetting<V>;
export function choice<const V extends string>(values: readonly V[], options: WithoutDefault): Setting<V, true>;
export function choice(values: readonly string[], options: WithDefault<string> | WithoutDefault): AnySetting {
  return { ...options, schema: { enum: values }, accepts: values.map((value) => `\`${value}\``).join(', ') };
}

export function flag(options: WithDefault<boolean>): DefaultedSetting<boolean> {
  return { ...options, schema: { type: 'boolean' }, accepts: '`true`, `false`' };
}

interface TextRules {
  /** A regular expression the whole value must match. */
  pattern?: string;
  /** What the pattern accepts, as the docs say it. */
  accepts?: string;
}

export function text(options: WithDefault<string> & TextRules): DefaultedSetting<string>;
export function text(options: WithoutDefault & TextRules): Setting<string, true>;
export function text(options: (WithDefault<string> | WithoutDefault) & TextRules): AnySetting {
  const { pattern, accepts, ...described } = options;
  return {
    ...described,
    schema: pattern === undefined ? { type: 'string', minLength: 1 } : { type: 'string', pattern },
    accepts: accepts ?? 'text',
  };
}

/** The JSON schema of a declaration (config.ts validates the environment against it). */
export function schemaOf(settings: Settings): { type: 'object'; properties: Record<string, Record<string, unknown>> } {
  const properties: Record<string, Record<string, unknown>> = {};
  for (const [name, setting] of Object.entries(settings)) {
    properties[name] = setting.default === undefined ? setting.schema : { ...setting.schema, default: setting.default };
  }
  return { type: 'object', properties };
}
