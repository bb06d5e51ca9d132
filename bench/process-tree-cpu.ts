/**
 * CPU time of whole process trees, read from /proc (Linux): a service cluster (its primary and
 * every worker), one PostgreSQL server (its postmaster and every backend and background process,
 * not the other PostgreSQL servers that share this machine) and a PgBouncer. Processes that start
 * during a measurement count from zero; one that ends meanwhile is lost (the pools keep theirs).
 */
import fs from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux that Node supports

interface Stat {
  parent: number;
  cpuMs: number;
}

function readStat(pid: number): Stat | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { parent: Number(fields[1]), cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND };
  } catch {
    return undefined;
  }
}

/** The parent of a process (PostgreSQL backend → its postmaster), or undefined when it is not on this machine. */
export function parentOf(pid: number): number | undefined {
  return readStat(pid)?.parent;
}

/** User + system CPU milliseconds of each process in the trees rooted at `roots`. */
function treeCpu(roots: number[]): Map<number, number> {
  const stats = new Map<number, Stat>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) stats.set(Number(entry), stat);
  }
  const inTree = (pid: number): boolean => {
    for (let current: number | undefined = pid, depth = 0; current && depth < 16; current = stats.get(current)?.parent, depth++) {
      if (roots.includes(current)) return true;
    }
    return false;
  };
  return new Map([...stats].filter(([pid]) => inTree(pid)).map(([pid, stat]) => [pid, stat.cpuMs]));
}

/** Starts counting the trees; `spentMs()` is the CPU they have used since. Roots that are undefined are left out. */
export function countTreeCpu(roots: Array<number | undefined>): { spentMs(): number } {
  const present = roots.filter((root): root is number => root !== undefined);
  const start = treeCpu(present);
  return {
    spentMs() {
      let spent = 0;
      for (const [pid, ms] of treeCpu(present)) spent += ms - (start.get(pid) ?? 0);
      return spent;
    },
  };
}
