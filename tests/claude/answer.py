#!/usr/bin/env python3
"""Answers like any hook would: `answer.py EXIT [STDOUT [STDERR]]` prints STDOUT and STDERR as
given (no newline added) and exits with EXIT. The suite uses it for the answer matrix."""
import sys

code = int(sys.argv[1])
if len(sys.argv) > 2:
    sys.stdout.write(sys.argv[2])
if len(sys.argv) > 3:
    sys.stderr.write(sys.argv[3])
sys.exit(code)
