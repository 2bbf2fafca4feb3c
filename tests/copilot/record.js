#!/usr/bin/env node
// Records its stdin (one line) to $RECORD and prints $ANSWER, if set: the suite's probe.
const fs = require("fs");
const input = fs.readFileSync(0, "utf8");
if (process.env.RECORD) fs.appendFileSync(process.env.RECORD, input.endsWith("\n") ? input : input + "\n");
if (process.env.ANSWER) process.stdout.write(process.env.ANSWER);
process.exit(Number(process.env.EXIT || 0));
