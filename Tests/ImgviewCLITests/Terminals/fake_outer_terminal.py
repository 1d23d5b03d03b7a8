#!/usr/bin/env python3
"""Plays the terminal a tmux client runs in, under a real pty, answering like a chosen one.

    fake_outer_terminal.py VERSION COLUMNS ROWS LOG -- COMMAND...

COMMAND (`tmux -L SOCKET attach`) runs on the pty with the window size given (10×20-pixel
cells). Everything it writes is appended to LOG. Questions are answered as the terminal that
answers XTVERSION with VERSION would (`kitty(0.35.2)`): DA1, DA2, XTVERSION, the cell and text-area
size, DSR, and kitty graphics queries, the one with a virtual placement (`U=1`) only from a kitty
with Unicode placeholders (0.28 and later), as real kitty 0.26.5 leaves it unanswered. Runs until
COMMAND ends or it is sent SIGTERM.
"""
import fcntl, os, pty, re, select, signal, struct, sys, termios

ESC = b"\x1b"


def has_placeholders(version):
    match = re.match(rb"kitty\((\d+)\.(\d+)", version)
    return bool(match) and (int(match.group(1)), int(match.group(2))) >= (0, 28)


def main():
    version, columns, rows, log_path = sys.argv[1].encode(), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    command = sys.argv[sys.argv.index("--") + 1:]
    answers = [
        (re.compile(rb"\x1b\[>0?q"), lambda m: ESC + b"P>|" + version + ESC + b"\\"),
        (re.compile(rb"\x1b\[>0?c"), lambda m: ESC + b"[>1;4000;35c"),
        (re.compile(rb"\x1b\[0?c"), lambda m: ESC + b"[?62;c"),
        (re.compile(rb"\x1b\[16t"), lambda m: ESC + b"[6;20;10t"),
        (re.compile(rb"\x1b\[14t"), lambda m: ESC + b"[4;%d;%dt" % (rows * 20, columns * 10)),
        (re.compile(rb"\x1b\[5n"), lambda m: ESC + b"[0n"),
        (re.compile(rb"\x1b_(G[^;\x1b]*)(?:;[^\x1b]*)?\x1b\\"), lambda m: kitty_answer(m.group(1), version)),
    ]
    pid, master = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "xterm-256color"
        os.environ.pop("TMUX", None)
        os.execvp(command[0], command)
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, columns * 10, rows * 20))
    os.kill(pid, signal.SIGWINCH)
    signal.signal(signal.SIGTERM, lambda *_: (os.kill(pid, signal.SIGHUP), sys.exit(0)))
    pending = b""
    with open(log_path, "ab", buffering=0) as log:
        while True:
            try:
                ready, _, _ = select.select([master], [], [], 1)
            except InterruptedError:
                continue
            if not ready:
                if os.waitpid(pid, os.WNOHANG)[0]:
                    return
                continue
            try:
                data = os.read(master, 65536)
            except OSError:
                return
            if not data:
                return
            log.write(data)
            pending += data
            # Answer every whole question in what came, in order; keep a possible start of one.
            while True:
                found = None
                for pattern, answer in answers:
                    match = pattern.search(pending)
                    if match and (found is None or match.start() < found[0].start()):
                        found = (match, answer)
                if not found:
                    break
                reply = found[1](found[0])
                if reply:
                    os.write(master, reply)
                pending = pending[found[0].end():]
            last = pending.rfind(ESC)
            pending = pending[last:] if last >= 0 and len(pending) - last < 4_200_000 else b""


def kitty_answer(keys, version):
    fields = dict(part.split(b"=", 1) for part in keys[1:].split(b",") if b"=" in part) if keys.startswith(b"G") else {}
    if not version.startswith(b"kitty") or fields.get(b"a") != b"q" or b"i" not in fields:
        return None
    if b"U" in fields and not has_placeholders(version):
        return None  # kitty before 0.28: an unknown key, no answer at all
    return ESC + b"_Gi=" + fields[b"i"] + b";OK" + ESC + b"\\"


if __name__ == "__main__":
    main()
