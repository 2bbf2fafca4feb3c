#!/usr/bin/env python3
"""Answers like any Codex hook would: `answer.py EXIT [STDOUT [STDERR [SLEEP_MS]]]` sleeps
SLEEP_MS, prints STDOUT and STDERR as given (no newline added) and exits with EXIT. The suite uses
it for the answer matrix and, with the sleep, to choose which of several hooks finishes last."""
import sys
import time

if len(sys.argv) > 4:
    time.sleep(int(sys.argv[4]) / 1000)
if len(sys.argv) > 2:
    sys.stdout.write(sys.argv[2])
if len(sys.argv) > 3:
    sys.stderr.write(sys.argv[3])
sys.exit(int(sys.argv[1]))
