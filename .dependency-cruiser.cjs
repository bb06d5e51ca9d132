/**
 * dependency-cruiser's configuration for the layer check (scripts/architecture/check-layers.mjs,
 * run by `make check`). The rules are made from the one layer table, scripts/architecture/layers.cjs:
 * a unit of src/ may not import a unit of a higher layer, nor another unit of its own layer (unless
 * the layer is `sideways`). Type-only imports count: a layer that names a higher layer's types knows it.
 */
const { LAYERS } = require('./scripts/architecture/layers.cjs');

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** A unit's files: a folder's whole subtree, or one top-level file. */
const unitPath = (unit) => (unit.endsWith('/') ? `^src/${escapeRegExp(unit)}` : `^src/${escapeRegExp(unit)}$`);
const slug = (text) => text.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '');

function layerRules() {
  const rules = [];
  LAYERS.forEach((layer, index) => {
    const higher = LAYERS.slice(0, index).flatMap((above) => above.units);
    for (const unit of layer.units) {
      const sideways = layer.sideways ? [] : layer.units.filter((other) => other !== unit);
      const forbidden = [...higher, ...sideways];
      if (forbidden.length === 0) continue;
      rules.push({
        name: `layer-${slug(unit)}`,
        severity: 'error',
        comment: `src/${unit} (layer ${index + 1}, ${layer.name}) imports only from itself and from lower layers (docs/architecture.md, "Layers")`,
        from: { path: unitPath(unit) },
        to: { path: forbidden.map(unitPath) },
      });
    }
  });
  return rules;
}

module.exports = {
  forbidden: [
    ...layerRules(),
    {
      name: 'no-import-cycle',
      severity: 'error',
      comment: 'Modules of src/ that import one another in a circle: one of them belongs lower',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'src-not-to-tools',
      severity: 'error',
      comment: 'The service never imports its tests, scripts or benchmarks',
      from: { path: '^src/' },
      to: { path: '^(test|scripts|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The generated Prisma client is a foundation leaf that every layer may import: not worth reading.
    exclude: { path: '^src/generated/prisma/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'] },
  },
};
