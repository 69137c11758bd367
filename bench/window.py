#!/usr/bin/env python3
"""Measures one tool's TPC-C window from outside, the same way for every tool (bench/tpcc.sh).

    bench/window.py KIND DB RAMPUP DURATION OUTFILE MARKER -- COMMAND...

Runs COMMAND (its output into OUTFILE). Once MARKER appears in OUTFILE (or at once when MARKER is
"-"), it waits RAMPUP seconds plus a settling margin, takes a snapshot, waits until the margin before
the end of the DURATION-second window, and takes another. Each snapshot reads, at one instant:

  - the tool's CPU: user + system time of COMMAND's process and every descendant (/proc),
  - the server's CPU: user + system time of every postgres or mariadbd/mysqld process,
  - SUM(d_next_o_id) of database DB (New-Orders, counted by the database, as NOPM is defined),
  - the server's transaction counter: PostgreSQL's xact_commit + xact_rollback of DB, MySQL's
    Com_commit + Com_rollback (server-wide; one tool runs at a time).

It prints one line of KEY=VALUE pairs: NOPM (New-Orders per minute between the snapshots),
TXN_PER_S, CPU_US_PER_TXN (the tool's CPU per server-counted transaction), CPU_SHARE (the tool's
CPU as a percentage of the server's), WINDOW_S, and EXIT (COMMAND's exit code). The margins keep
both snapshots inside every tool's steady state: a tool's own window starts a second or two after
it is launched (connections, a JVM's start), so the first 5 s and the last 5 s are left out.
"""
import os
import subprocess
import sys
import time

MARGIN = 5.0
TICK = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, IndexError, ValueError):
        return 0.0


def children():
    """parent pid -> child pids, for every process."""
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        kids.setdefault(ppid, []).append(int(d))
    return kids


def tree_cpu(root):
    kids, total, todo = children(), 0.0, [root]
    while todo:
        p = todo.pop()
        total += proc_cpu(p)
        todo.extend(kids.get(p, []))
    return total


def server_cpu(kind):
    names = {"postgres"} if kind == "postgres" else {"mysqld"} if os.environ.get("BENCH_MY_KIND") == "mysql" else {"mariadbd"}
    total = 0.0
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/comm") as f:
                if f.read().strip() not in names:
                    continue
        except OSError:
            continue
        total += proc_cpu(d)
    return total


def query(kind, db, sql):
    if kind == "postgres":
        cmd = ["psql", "-h", "127.0.0.1", "-U", "cairn", "-d", db, "-Atc", sql]
        env = dict(os.environ, PGPASSWORD="cairn")
    else:
        e = os.environ
        cmd = ["mysql", "--no-defaults", "-h", e.get("BENCH_MY_HOST", "127.0.0.1"), "-P", e.get("BENCH_MY_PORT", "3306"),
               "-u", e.get("BENCH_MY_USER", "cairn"), "-p" + e.get("BENCH_MY_PASS", "cairn"), "-N", "-B", db, "-e", sql]
        env = os.environ
    out = subprocess.run(cmd, capture_output=True, text=True, env=env).stdout.replace("|", " ").split()
    if kind != "postgres" and len(out) == 5:  # N, then SHOW GLOBAL STATUS's two name-value rows
        out = [out[0], str(float(out[2]) + float(out[4]))]
    try:
        return [float(x) for x in out] if len(out) == 2 else None
    except ValueError:
        return None


def snapshot(kind, db, pid):
    if kind == "postgres":
        sql = ("SELECT (SELECT COALESCE(SUM(d_next_o_id), 0) FROM district), "
               "(SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database())")
    else:
        # MySQL 8 keeps Com_* out of its status tables: SHOW has them on both servers.
        sql = ("SELECT COALESCE(SUM(d_next_o_id), 0) FROM district; "
               "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit', 'Com_rollback')")
    t0 = time.monotonic()
    tool, server = tree_cpu(pid), server_cpu(kind)
    row = query(kind, db, sql)
    t = (t0 + time.monotonic()) / 2
    return {"t": t, "tool": tool, "server": server, "no": row[0] if row else None, "txn": row[1] if row else None}


def main():
    kind, db, rampup, duration, outfile, marker = sys.argv[1:7]
    rampup, duration = float(rampup), float(duration)
    cmd = sys.argv[sys.argv.index("--") + 1:]
    with open(outfile, "w") as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
    start = time.monotonic()
    if marker != "-":
        while p.poll() is None:
            try:
                with open(outfile, errors="replace") as f:
                    if marker in f.read():
                        break
            except OSError:
                pass
            time.sleep(0.2)
        start = time.monotonic()
    a = b = None
    if p.poll() is None:
        time.sleep(max(0.0, start + rampup + MARGIN - time.monotonic()))
        if p.poll() is None:
            a = snapshot(kind, db, p.pid)
            time.sleep(max(0.0, start + rampup + duration - MARGIN - time.monotonic()))
            if p.poll() is None:
                b = snapshot(kind, db, p.pid)
    code = p.wait()
    res = {"EXIT": code}
    if a and b and a["no"] is not None and b["no"] is not None and b["t"] > a["t"]:
        dt = b["t"] - a["t"]
        txns = b["txn"] - a["txn"]
        tool, server = b["tool"] - a["tool"], b["server"] - a["server"]
        res.update(WINDOW_S="%.1f" % dt, NOPM="%d" % ((b["no"] - a["no"]) * 60 / dt),
                   TXN_PER_S="%.0f" % (txns / dt),
                   CPU_US_PER_TXN="%.1f" % (tool * 1e6 / txns) if txns > 0 else "n/a",
                   CPU_SHARE="%.1f" % (100 * tool / server) if server > 0 else "n/a")
    print(" ".join(f"{k}={v}" for k, v in res.items()))


if __name__ == "__main__":
    main()
