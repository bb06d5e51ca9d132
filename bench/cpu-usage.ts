/**
 * CPU time per request of each party of a measurement: the server under test, PostgreSQL (all
 * its processes on this machine) and the load generator (this process, where autocannon runs).
 * On a 2-core machine shared by all three, these say what bounds a throughput: an operation can
 * reach 0.5 of the ceiling only if everything it costs fits in 2 cores at half the ceiling's rate.
 * Read from /proc (Linux); where it is missing, or PostgreSQL runs elsewhere, the figure is absent.
 */
import fs from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ, 100 on every Linux that Node supports
const cpuCountsOfLinux = fs.existsSync('/proc/self/stat');

/** User + system CPU milliseconds of a process, or undefined once it has gone. */
function processCpuMs(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which may itself hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

function postgresPids(): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')[0] ?? '';
      const comm = fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (comm === 'postgres' || command.endsWith('/postgres')) pids.push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  return pids;
}

export interface CpuPerRequest {
  serverMs?: number;
  postgresMs?: number;
  loadGeneratorMs?: number;
}

/** Starts counting; `perRequest(n)` divides what each party spent since then by n requests. */
export function countCpu(serverPid: number | undefined): { perRequest(requests: number): CpuPerRequest } {
  if (!cpuCountsOfLinux) return { perRequest: () => ({}) };
  const serverStart = serverPid === undefined ? undefined : processCpuMs(serverPid);
  const postgresStart = new Map(postgresPids().map((pid) => [pid, processCpuMs(pid) ?? 0]));
  const selfStart = process.cpuUsage();
  return {
    perRequest(requests) {
      if (requests <= 0) return {};
      const serverEnd = serverPid === undefined ? undefined : processCpuMs(serverPid);
      // A backend that started during the run counts from zero; one that ended is lost (rare: the pool keeps them).
      const pids = postgresPids();
      const postgresMs = pids.reduce((sum, pid) => sum + (processCpuMs(pid) ?? 0) - (postgresStart.get(pid) ?? 0), 0);
      const self = process.cpuUsage(selfStart);
      return {
        serverMs: serverStart === undefined || serverEnd === undefined ? undefined : (serverEnd - serverStart) / requests,
        postgresMs: pids.length > 0 ? postgresMs / requests : undefined,
        loadGeneratorMs: (self.user + self.system) / 1000 / requests,
      };
    },
  };
}
