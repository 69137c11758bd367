#!/usr/bin/env python3
"""Measures, around one run of a client, what the run cost the server and what went over the wire
(bench/micro.sh).

    bench/exchange.py run KIND SERVERPID PORT COMM DURATION OUTFILE -- COMMAND...
    bench/exchange.py handshake KIND PORT OUTFILE -- COMMAND...

run: runs COMMAND (its output into OUTFILE) and prints one line of KEY=VALUE pairs:

  - SERVER_CPU_S: user + system CPU of the server's process SERVERPID and every descendant
    (/proc/PID/stat, which counts a process's exited threads; PostgreSQL's backends exit with
    their connections and are then in the postmaster's cutime + cstime), from just before COMMAND
    starts to just after it exits.
  - SERVER_VCS, SERVER_ICS: voluntary and involuntary context switches of the server's threads
    (/proc/PID/task/TID/status of the server and its descendants), per thread the last value seen
    less the first (0 for a thread born in the run), summed. Threads are read every 0.25 s, so the
    switches of a thread in the last 0.25 s before it exits are not counted (MariaDB keeps its
    connection threads in its thread cache; a PostgreSQL backend exits with its client).
  - The exchange over a window from 30% to 80% of DURATION seconds after COMMAND starts: the TCP
    counters (`ss -tin`) of COMMAND's sockets to PORT (those whose process is named COMM) present
    at both ends of the window: W_BYTES_OUT and W_BYTES_IN (bytes_sent, bytes_received: TCP
    payload), W_SEGS_OUT and W_SEGS_IN (segments, pure ACKs included), W_DSEGS_OUT and W_DSEGS_IN
    (segments with data), W_S (the window's seconds), W_SOCKETS; on MySQL/MariaDB also W_STMTS,
    the server's Com_select over the window (a point select, text or prepared, counts once).
  - STMTS: the statements the server counted over the run: MySQL/MariaDB's Com_select (a point
    select counts once, text or prepared; so do the client's other SELECTs), PostgreSQL's
    xact_commit + xact_rollback of the database (BENCH_PG_HOST, BENCH_PG_PORT, BENCH_PG_DBNAME),
    read half a second after the client exits, when its backends have flushed their counts.
  - On MySQL/MariaDB the server's own counters over the run, deltas of SHOW GLOBAL STATUS:
    QUESTIONS, COM_STMT_EXECUTE, COM_STMT_PREPARE, COM_STMT_CLOSE, COM_STMT_RESET, COM_SELECT,
    COM_ADMIN (COM_PING and other administrative commands), BYTES_SENT, BYTES_RECEIVED (the
    server's view: everything to and from every client, this script's two queries included).
  - SS_INFO: the fields of `ss -ti` on the delayed-ACK state of one of COMMAND's sockets at the
    window's start (ato, the delayed-ACK timeout; qack, the quick-ACK count, when ss shows one).
  - EXIT: COMMAND's exit code.

handshake: runs COMMAND under strace -f and prints what its connections set and negotiated: SOCKOPTS
(every setsockopt COMMAND made, option=value, with how many times), and on MySQL/MariaDB CAPS (the
capability flags of the first handshake response COMMAND wrote, with MariaDB's extended ones when
the server is MariaDB) and SERVER_CAPS (the server's greeting). Run it once per tool with one client
and a short duration: strace slows every system call.
"""
import os
import re
import subprocess
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")
POLL = 0.25


def stat_fields(path):
    with open(path) as f:
        return f.read().rsplit(")", 1)[1].split()


def kids(pid):
    """pid's child processes, from /proc/PID/task/*/children (no scan of every process: this is
    read four times a second while the client runs)."""
    out = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for t in tids:
        try:
            with open(f"/proc/{pid}/task/{t}/children") as f:
                out.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            pass
    return out


def tree(root):
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids(p))
    return out


def server_cpu(root):
    """CPU seconds of root (its own, and its waited-for children's) and its living descendants."""
    total = 0.0
    for p in tree(root):
        try:
            f = stat_fields(f"/proc/{p}/stat")
        except (OSError, IndexError):
            continue
        total += int(f[11]) + int(f[12])
        if p == root:
            total += int(f[13]) + int(f[14])
    return total / TICK


def switches(root, seen):
    """Updates seen (tid -> [voluntary, involuntary]) with every thread of root's tree."""
    for p in tree(root):
        try:
            tids = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tids:
            v = i = None
            try:
                with open(f"/proc/{p}/task/{t}/status") as f:
                    for line in f:
                        if line.startswith("voluntary_ctxt_switches:"):
                            v = int(line.split()[1])
                        elif line.startswith("nonvoluntary_ctxt_switches:"):
                            i = int(line.split()[1])
            except OSError:
                continue
            if v is not None and i is not None:
                seen[(p, t)] = [v, i]


SS_FIELDS = ("bytes_sent", "bytes_received", "segs_out", "segs_in", "data_segs_out", "data_segs_in")


def sockets(port, comm):
    """local address -> counters of COMM's established TCP sockets to port, and one socket's info."""
    out = subprocess.run(["ss", "-tinpH", "state", "established", f"( dport = :{port} )"],
                         capture_output=True, text=True).stdout.splitlines()
    socks, info, key = {}, "", None
    for line in out:
        if not line.startswith((" ", "\t")):
            key = None
            if f'(("{comm}",' in line:
                key = line.split()[2]  # Recv-Q Send-Q Local Peer (no State column with a state filter)
            continue
        if key is None:
            continue
        c = {}
        for k in SS_FIELDS:
            m = re.search(r"\b" + k + r":(\d+)", line)
            c[k] = int(m.group(1)) if m else 0
        socks[key] = c
        if not info:
            info = " ".join(m.group(0) for m in re.finditer(r"\b(ato:\S+|qack:\S+|bidir)", line)) or "-"
    return socks, info


STATUS = ("Questions", "Com_stmt_execute", "Com_stmt_prepare", "Com_stmt_close", "Com_stmt_reset",
          "Com_select", "Com_admin_commands", "Bytes_sent", "Bytes_received")


def my_status():
    e = os.environ
    names = ", ".join(f"'{n}'" for n in STATUS)
    cmd = ["mysql", "--no-defaults", "-h", e.get("BENCH_MY_HOST", "127.0.0.1"), "-P", e.get("BENCH_MY_PORT", "3306"),
           "-u", e.get("BENCH_MY_USER", "cairn"), "-p" + e.get("BENCH_MY_PASS", "cairn"), "-N", "-B",
           "-e", f"SHOW GLOBAL STATUS WHERE Variable_name IN ({names})"]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout.split()
    return {out[k]: int(out[k + 1]) for k in range(0, len(out) - 1, 2) if out[k + 1].isdigit()}


def pg_xacts():
    """xact_commit + xact_rollback of the benchmark's database (BENCH_PG_*): a point select outside
    a transaction block is one."""
    e = os.environ
    cmd = ["psql", "-h", e.get("BENCH_PG_HOST", "127.0.0.1"), "-p", e.get("BENCH_PG_PORT", "5432"), "-U", "cairn",
           "-d", e.get("BENCH_PG_DBNAME", "cairn_bench"), "-Atc",
           "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = current_database()"]
    out = subprocess.run(cmd, capture_output=True, text=True, env=dict(e, PGPASSWORD="cairn")).stdout.strip()
    return int(out) if out.isdigit() else None


def run(kind, pid, port, comm, duration, outfile, cmd):
    pid, duration = int(pid), float(duration)
    mysql = kind != "postgres"
    seen, first = {}, {}
    switches(pid, first)
    st0 = my_status() if mysql else {}
    x0 = None if mysql else pg_xacts()
    cpu0 = server_cpu(pid)
    with open(outfile, "w") as out:
        p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
    start = time.monotonic()
    marks = [start + 0.3 * duration, start + 0.8 * duration]
    win = []
    while p.poll() is None:
        switches(pid, seen)
        if marks and time.monotonic() >= marks[0]:
            marks.pop(0)
            t = time.monotonic()
            socks, info = sockets(port, comm)
            st = my_status() if mysql else {}
            win.append((t, socks, info, st))
        time.sleep(POLL)
    code = p.wait()
    cpu1 = server_cpu(pid)
    switches(pid, seen)
    st1 = my_status() if mysql else {}
    if not mysql:
        time.sleep(0.5)  # the client's backends exit and flush their counts
        x1 = pg_xacts()
        if x0 is not None and x1 is not None:
            st0, st1 = {"Com_select": x0}, {"Com_select": x1 - 1}  # less this query's own
    res = {"EXIT": code, "SERVER_CPU_S": "%.3f" % (cpu1 - cpu0)}
    vcs = ics = 0
    for k, (v, i) in seen.items():
        v0, i0 = first.get(k, (0, 0))
        vcs, ics = vcs + v - v0, ics + i - i0
    res.update(SERVER_VCS=vcs, SERVER_ICS=ics)
    if len(win) == 2:
        (ta, a, info, sa), (tb, b, _, sb) = win
        common = [k for k in a if k in b]
        res["W_S"] = "%.3f" % (tb - ta)
        res["W_SOCKETS"] = len(common)
        for k, name in zip(SS_FIELDS, ("W_BYTES_OUT", "W_BYTES_IN", "W_SEGS_OUT", "W_SEGS_IN", "W_DSEGS_OUT", "W_DSEGS_IN")):
            res[name] = sum(b[s][k] - a[s][k] for s in common)
        if mysql and "Com_select" in sa and "Com_select" in sb:
            res["W_STMTS"] = sb["Com_select"] - sa["Com_select"]
        res["SS_INFO"] = info.replace(" ", ",")
    if "Com_select" in st0 and "Com_select" in st1:
        res["STMTS"] = st1["Com_select"] - st0["Com_select"]
    for n in STATUS:
        if n in st0 and n in st1:
            res[n.upper().replace("COM_ADMIN_COMMANDS", "COM_ADMIN")] = st1[n] - st0[n]
    print(" ".join(f"{k}={v}" for k, v in res.items()))


# Capability flags (https://mariadb.com/kb/en/connection/#capabilities).
CAPS = ["CLIENT_MYSQL", "FOUND_ROWS", "LONG_FLAG", "CONNECT_WITH_DB", "NO_SCHEMA", "COMPRESS", "ODBC",
        "LOCAL_FILES", "IGNORE_SPACE", "PROTOCOL_41", "INTERACTIVE", "SSL", "IGNORE_SIGPIPE",
        "TRANSACTIONS", "RESERVED", "SECURE_CONNECTION", "MULTI_STATEMENTS", "MULTI_RESULTS",
        "PS_MULTI_RESULTS", "PLUGIN_AUTH", "CONNECT_ATTRS", "PLUGIN_AUTH_LENENC_CLIENT_DATA",
        "CAN_HANDLE_EXPIRED_PASSWORDS", "SESSION_TRACK", "DEPRECATE_EOF", "OPTIONAL_RESULTSET_METADATA",
        "ZSTD_COMPRESSION", "QUERY_ATTRIBUTES", "MULTI_FACTOR_AUTH", "CAPABILITY_EXTENSION",
        "SSL_VERIFY_SERVER_CERT", "REMEMBER_OPTIONS"]
MARIADB_CAPS = ["MARIADB_CLIENT_PROGRESS", "MARIADB_CLIENT_COM_MULTI", "MARIADB_CLIENT_STMT_BULK_OPERATIONS",
                "MARIADB_CLIENT_EXTENDED_METADATA", "MARIADB_CLIENT_CACHE_METADATA"]


def flags(v, names):
    return [n for b, n in enumerate(names) if v >> b & 1]


def unescape(s):
    return bytes(int(h, 16) for h in re.findall(r"\\x([0-9a-f]{2})", s))


def handshake(kind, port, outfile, cmd):
    trace = outfile + ".strace"
    with open(outfile, "w") as out:
        code = subprocess.run(["strace", "-f", "-qq", "-o", trace, "-xx", "-s", "256",
                               "-e", "trace=setsockopt,write,sendto,read,recvfrom"] + cmd,
                              stdout=out, stderr=subprocess.STDOUT).returncode
    opts, caps, server = {}, None, None
    with open(trace, errors="replace") as f:
        for line in f:
            m = re.search(r"setsockopt\(\d+, (\w+), (\w+), \[?(-?\d+|\{[^}]*\})\]?", line)
            if m:
                k = f"{m.group(2)}={m.group(3).replace(' ', '')}"
                opts[k] = opts.get(k, 0) + 1
                continue
            if kind == "postgres":
                continue
            m = re.search(r'(write|sendto|read|recvfrom)\(\d+, "((?:\\x[0-9a-f]{2})+)"', line)
            if not m:
                continue
            b = unescape(m.group(2))
            if len(b) < 36:
                continue
            n = b[0] | b[1] << 8 | b[2] << 16
            if m.group(1) in ("read", "recvfrom") and server is None and b[3] == 0 and b[4] == 10:
                # greeting: version string, thread id, scramble, filler, caps low 16, charset, status,
                # caps high 16, ..., 6 filler bytes and MariaDB's extended caps
                v = b.index(0, 5)
                pos = v + 1 + 4 + 8 + 1
                lo = int.from_bytes(b[pos:pos + 2], "little")
                hi = int.from_bytes(b[pos + 5:pos + 7], "little")
                c = lo | hi << 16
                ext = int.from_bytes(b[pos + 14:pos + 18], "little") if not c & 1 else 0
                server = flags(c, CAPS) + flags(ext, MARIADB_CAPS)
            elif m.group(1) in ("write", "sendto") and caps is None and b[3] == 1 and n >= 32:
                c = int.from_bytes(b[4:8], "little")
                ext = int.from_bytes(b[32:36], "little") if not c & 1 else 0
                caps = flags(c, CAPS) + flags(ext, MARIADB_CAPS)
    res = {"EXIT": code, "SOCKOPTS": ",".join(f"{k}×{v}" for k, v in sorted(opts.items())) or "-"}
    if kind != "postgres":
        res["CAPS"] = ",".join(caps) if caps is not None else "not-seen"
        res["SERVER_CAPS"] = ",".join(server) if server is not None else "not-seen"
    print(" ".join(f"{k}={v}" for k, v in res.items()))


def main():
    cmd = sys.argv[sys.argv.index("--") + 1:]
    args = sys.argv[1:sys.argv.index("--")]
    if args[0] == "run":
        run(*args[1:], cmd)
    elif args[0] == "handshake":
        handshake(*args[1:], cmd)
    else:
        sys.exit("usage: bench/exchange.py run|handshake … -- COMMAND…")


if __name__ == "__main__":
    main()
