/**
 * The files a run traced with `strace -f -y` opened, from its log: each file read (opened other than write-only, not a
 * directory) and each opened for writing (write-only, read-write, truncated, created). A call another process
 * interrupts is split in two rows (`openat(…, O_RDONLY <unfinished ...>`, then `<... openat resumed>) = 3</x>`):
 * joined by pid.
 */
export function straceOpens(log: string): { read: Set<string>; wrote: Set<string> } {
  const read = new Set<string>();
  const wrote = new Set<string>();
  const unfinished = new Map<string, string>();
  for (const raw of log.split("\n")) {
    const pid = /^(\d+)\s/.exec(raw)?.[1] ?? "";
    let row = raw;
    if (raw.includes("<unfinished ...>")) {
      unfinished.set(pid, raw.replace("<unfinished ...>", ""));
      continue;
    }
    const resumed = /<\.\.\. \w+ resumed>(.*)$/.exec(raw);
    if (resumed !== null) {
      row = `${unfinished.get(pid) ?? ""}${resumed[1]}`;
      unfinished.delete(pid);
    }
    // openat(AT_FDCWD, ".env", O_RDONLY) = 3</abs/.env>
    const open = /\b(?:open|openat|openat2|creat)\(.*\)\s+=\s+\d+<([^>]*)>/.exec(row);
    if (open === null) continue;
    const opened = open[1]!;
    if (/O_WRONLY|O_RDWR|O_TRUNC|O_CREAT|creat\(/.test(row)) wrote.add(opened);
    if (!/O_WRONLY/.test(row) && !/O_DIRECTORY/.test(row)) read.add(opened);
  }
  return { read, wrote };
}
