#!/usr/bin/env python3
"""Runs commands in turn, round after round, and reports each one's median wall time and
the per-round ratio of the second to the first: on a noisy machine, a slow stretch then
slows both alike instead of one. Output goes to /dev/null; Python's spawn is included.

    python3 tests/bench/interleave.py ROUNDS "CMD1" "CMD2" ...
"""
import subprocess, sys, time, statistics as st, shlex
n = int(sys.argv[1]); cmds = sys.argv[2:]
times = [[] for _ in cmds]
dn = open('/dev/null','wb')
for c in cmds:
    for _ in range(3): subprocess.run(shlex.split(c), stdout=dn, stderr=dn)
for i in range(n):
    for k, c in enumerate(cmds if i % 2 == 0 else list(reversed(cmds))):
        k = k if i % 2 == 0 else len(cmds) - 1 - k
        t = time.perf_counter(); subprocess.run(shlex.split(c), stdout=dn, stderr=dn); times[k].append(time.perf_counter() - t)
for c, t in zip(cmds, times):
    t = sorted(t); print(f"{st.median(t)*1e3:7.1f} ms (q1 {t[len(t)//4]*1e3:.1f}, q3 {t[3*len(t)//4]*1e3:.1f})  {c}")
if len(cmds) >= 2:
    r = sorted(b / a for a, b in zip(times[0], times[1]))
    print(f"per-round ratio cmd2/cmd1: median {st.median(r):.2f} (q1 {r[len(r)//4]:.2f}, q3 {r[3*len(r)//4]:.2f}); ratio of medians {st.median(times[1])/st.median(times[0]):.2f}")
