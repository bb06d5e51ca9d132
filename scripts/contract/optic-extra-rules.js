/**
 * Breaking changes that Optic's standard `breaking-changes` ruleset (1.0.9) does not report, and
 * that break partners of THIS contract (loaded by scripts/contract/optic-standard.yml):
 *  - removing a request body property: every request schema has `additionalProperties: false`,
 *    so a client that still sends the property gets `400 validation_failed` ("unknown field");
 *  - removing an enum value from a parameter whose schema is an array of enum values (the `status`
 *    and `type` list filters): the standard rule only looks at `schema.enum`, not `schema.items.enum`;
 *  - adding a value to the enum of a response header (`Idempotent-Replay`), or dropping that enum:
 *    the standard rule checks enums of body properties and parameters, never of response headers,
 *    yet a client that switches over the header's values meets one it does not know.
 * Like the standard ruleset, these rules stand down when `info.version` changes major version.
 */
// Optic loads rulesets as CommonJS modules.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { OperationRule, RequestRule, ResponseRule, Ruleset, RuleError } = require('@useoptic/rulesets-base');

const preventRequestPropertyRemoval = new RequestRule({
  name: 'prevent removing request property',
  rule: (request) => {
    request.property.removed((property) => {
      throw new RuleError({
        message: `cannot remove request property '${property.value.key}': request bodies refuse unknown fields, so clients still sending it would get 400. This is a breaking change.`,
      });
    });
  },
});

const itemEnum = (parameter) => {
  const items = parameter && parameter.schema && parameter.schema.items;
  return items && Array.isArray(items.enum) ? items.enum : undefined;
};

const preventParameterItemEnumBreak = (where) =>
  new OperationRule({
    name: `prevent ${where} parameter item enum narrowing`,
    rule: (operation) => {
      operation[`${where}Parameter`].changed((before, after) => {
        const previous = itemEnum(before.value);
        if (!previous) return;
        const current = itemEnum(after.value);
        if (!current) return; // enum dropped: every value is accepted now (widening)
        const removed = previous.filter((value) => !current.includes(value));
        if (removed.length > 0) {
          throw new RuleError({
            message: `cannot remove enum option${removed.length > 1 ? 's' : ''} '${removed.join(', ')}' from the items of ${where} parameter '${after.value.name}'. This is a breaking change.`,
          });
        }
      });
    },
  });

const schemaEnum = (schema) => {
  if (!schema) return undefined;
  if (Array.isArray(schema.enum)) return schema.enum;
  return 'const' in schema ? [schema.const] : undefined;
};

const preventResponseHeaderEnumWidening = new ResponseRule({
  name: 'prevent response header enum widening',
  rule: (response) => {
    response.header.changed((before, after) => {
      const previous = schemaEnum(before.value.schema);
      if (!previous) return; // no enum before: any value could already come
      const current = schemaEnum(after.value.schema);
      if (!current) {
        throw new RuleError({
          message: `cannot remove the enum of response header '${after.value.name}': clients would get values they do not know. This is a breaking change.`,
        });
      }
      const added = current.filter((value) => !previous.includes(value));
      if (added.length > 0) {
        throw new RuleError({
          message: `cannot add enum option${added.length > 1 ? 's' : ''} '${added.join(', ')}' to response header '${after.value.name}'. This is a breaking change.`,
        });
      }
    });
  },
});

module.exports = {
  name: 'contract-extra-breaking-changes',
  description: 'Breaking changes of this contract that the standard ruleset does not report.',
  configSchema: { type: 'object' },
  rulesetConstructor: () =>
    new Ruleset({
      name: 'contract extra breaking changes',
      matches: (context) => context.specification.versionChange !== 'major',
      rules: [
        preventRequestPropertyRemoval,
        preventParameterItemEnumBreak('query'),
        preventParameterItemEnumBreak('header'),
        preventParameterItemEnumBreak('path'),
        preventResponseHeaderEnumWidening,
      ],
    }),
};
