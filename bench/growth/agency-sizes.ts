/**
 * How many guarantees each agency of the growth dataset holds: a long tail, as a national
 * provider's book is (a few networks with hundreds of thousands, thousands of small agencies).
 *
 * The sizes are the 5,000 quantiles of a log-normal distribution (firm sizes are classically
 * log-normal), not random draws, so the dataset is the same on every machine: agency r (1 the
 * largest) holds exp(σ·z) guarantees, z the standard normal quantile at (N - r + 0.5) / N, scaled so
 * that the sizes add up to the total. σ is the one that makes the largest agency hold `largest`
 * (σ ≈ 1.76 for 300,000 of 10,000,000 over 5,000 agencies: median agency ≈ 427 guarantees, the
 * 90th percentile ≈ 4,100, the 10th ≈ 45, the smallest 1; the ten largest hold 12.5% of the book).
 */

export interface GrowthShape {
  agencies: number;
  guarantees: number;
  largest: number;
}

/**
 * The national provider's shape; BENCH_GROWTH_SHAPE=agencies,guarantees,largest seeds another one
 * (a small one checks the seeder in a minute: `50,20000,2000`), in a data directory of its own.
 */
export const GROWTH_SHAPE: GrowthShape = parseShape(process.env.BENCH_GROWTH_SHAPE) ?? { agencies: 5_000, guarantees: 10_000_000, largest: 300_000 };

function parseShape(text: string | undefined): GrowthShape | undefined {
  if (!text) return undefined;
  const [agencies, guarantees, largest] = text.split(',').map(Number);
  if (![agencies, guarantees, largest].every((value) => Number.isInteger(value) && value! > 0) || largest! * agencies! < guarantees!)
    throw new Error(`BENCH_GROWTH_SHAPE must be agencies,guarantees,largest (positive integers), not ${text}`);
  return { agencies: agencies!, guarantees: guarantees!, largest: largest! };
}

export const shapeText = (shape: GrowthShape = GROWTH_SHAPE) => `${shape.agencies},${shape.guarantees},${shape.largest}`;

/** Sizes by rank, largest first; they add up to `shape.guarantees` exactly, none under 1. */
export function agencySizes(shape: GrowthShape = GROWTH_SHAPE): number[] {
  const scaled = (sigma: number) => {
    const raw = Array.from({ length: shape.agencies }, (_, index) =>
      Math.exp(sigma * normalQuantile((shape.agencies - index - 0.5) / shape.agencies)),
    );
    const sum = raw.reduce((total, size) => total + size, 0);
    return raw.map((size) => (size * shape.guarantees) / sum);
  };
  // The largest share grows with σ: bisection.
  let low = 0.01;
  let high = 5;
  for (let step = 0; step < 80; step++) {
    const middle = (low + high) / 2;
    if (scaled(middle)[0]! > shape.largest) high = middle;
    else low = middle;
  }
  const sizes = scaled(low).map((size) => Math.max(1, Math.round(size)));
  // Rounding leaves a few guarantees over or under the total: the largest agency takes the difference.
  sizes[0]! += shape.guarantees - sizes.reduce((total, size) => total + size, 0);
  return sizes;
}

/** The rank (1-based) of the median agency: the upper middle one of an even count. */
export const medianRank = (shape: GrowthShape = GROWTH_SHAPE): number => Math.floor(shape.agencies / 2);

/**
 * The standard normal quantile (inverse CDF), by Acklam's rational approximation (relative error
 * under 1.2e-9): plenty for choosing agency sizes.
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile needs 0 < p < 1, not ${p}`);
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const tail = (q: number) =>
    (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}
