#!/usr/bin/env python3
"""Plays a terminal that answers imgview's detection query badly, under a real pty.

    hostile_terminal.py SCENARIO COLUMNS ROWS XPIXELS YPIXELS [--type KEYS] -- COMMAND...

COMMAND runs in a new session whose controlling terminal is the pty (so /dev/tty is it), with
the window size given (pixels as TIOCGWINSZ reports them). When the query's last question (DA1,
ESC [ c) appears in its output, this answers as SCENARIO says. When COMMAND ends, a shell reads
what it left in the terminal's input, as the next program would. With --type, KEYS are typed
once COMMAND has answered and then drawn nothing for half a second. Prints one JSON object:
status, seconds (COMMAND's run), after_typing (from the keys to its end), output (what COMMAND
wrote, hex), left (what was left, hex), peak_kb (the largest resident size of the processes
started).
"""
import fcntl, json, os, pty, resource, select, struct, sys, termios, time

ESC = b"\x1b"
LIMIT = 60  # seconds
DA1 = b"\x1b[?62;4c"
SCENARIOS = {
    # (pieces, seconds between pieces)
    "honest": ([ESC + b"[6;20;10t" + DA1], 0),
    "da1-cut-short": ([ESC + b"[?62;"], 0),
    "open-dcs": ([ESC + b"P>|xterm(1) and then nothing"], 0),
    "open-osc": ([ESC + b"]11;rgb:0000/00"], 0),
    "open-apc": ([ESC + b"_Gi=31;" + b"A" * 2000], 0),
    "nuls": ([b"\x00" * 16 + DA1], 0),
    "trickled": ([bytes([b]) for b in DA1], 0.1),
    "junk": ([b"JUNK" * 1024] * 256, 0),
    "huge-cell": ([ESC + b"[6;60000;60000t" + DA1], 0),
    "large-cell": ([ESC + b"[6;500;500t" + DA1], 0),
    "typed-keys": ([b"ls" + ESC + b"[6;20;10t" + DA1 + b"-l"], 0),
}


def main():
    scenario, columns, rows, xpixels, ypixels = sys.argv[1], *map(int, sys.argv[2:6])
    command = sys.argv[sys.argv.index("--") + 1:]
    keys = sys.argv[sys.argv.index("--type") + 1].encode() if "--type" in sys.argv[:sys.argv.index("--")] else None
    typed_at = None
    last_output = time.monotonic()
    pieces, interval = SCENARIOS[scenario]
    pid, master = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, xpixels, ypixels))
        script = (
            '"$@"; status=$?; '
            # What the next program reads: whatever is waiting, within 0.3 s.
            'stty -icanon -echo min 0 time 3; left=$(od -An -v -tx1 | tr -d " \\n"); '
            'printf "\\nSTATUS=%s LEFT=%s END\\n" "$status" "$left"'
        )
        os.execvp("sh", ["sh", "-c", script, "sh"] + command)
    started = time.monotonic()
    output = b""
    answered = False
    to_send = []
    next_send = 0.0
    finished = None
    while True:
        now = time.monotonic()
        if now - started > LIMIT:
            # A program still running after this long is a finding of its own: ended, reported as status -1.
            os.killpg(pid, 9)
            os.waitpid(pid, 0)
            print(json.dumps({"status": -1, "seconds": now - started, "output": "", "left": "", "answered": answered,
                              "after_typing": None, "peak_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
            return
        timeout = 0.05
        if to_send and now < next_send:
            timeout = min(timeout, next_send - now)
        wlist = [master] if to_send and now >= next_send else []
        readable, writable, _ = select.select([master], wlist, [], timeout)
        if keys and answered and not to_send and typed_at is None and time.monotonic() - last_output > 0.5:
            os.write(master, keys)
            typed_at = time.monotonic()
        if writable:
            piece = to_send[0]
            try:
                written = os.write(master, piece)
            except BlockingIOError:
                written = 0
            if written < len(piece):
                to_send[0] = piece[written:]
            else:
                to_send.pop(0)
                next_send = time.monotonic() + interval
        if readable:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            output += data
            last_output = time.monotonic()
            if not answered and ESC + b"[c" in output:
                answered = True
                to_send = list(pieces)
                next_send = time.monotonic() + interval
                fcntl.fcntl(master, fcntl.F_SETFL, fcntl.fcntl(master, fcntl.F_GETFL) | os.O_NONBLOCK)
            if finished is None and b"\nSTATUS=" in output.replace(b"\r\n", b"\n"):
                finished = time.monotonic()
                # A terminal that answers no more once the program is gone.
                to_send = []
            if b" END" in output:
                break
    os.waitpid(pid, 0)
    text = output.replace(b"\r\n", b"\n")
    tail = text[text.rfind(b"\nSTATUS="):]
    fields = dict(part.split(b"=", 1) for part in tail.split() if b"=" in part)
    print(json.dumps({
        "status": int(fields.get(b"STATUS", b"-1")),
        "seconds": (finished or time.monotonic()) - started,
        "output": text[: text.rfind(b"\nSTATUS=")].hex(),
        "left": fields.get(b"LEFT", b"").decode(),
        "answered": answered,
        "after_typing": ((finished or time.monotonic()) - typed_at) if typed_at else None,
        "peak_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    }))


main()
