# Runs a command on a pseudo-terminal, as a person at a terminal runs it: types each answer once
# the output so far ends with its prompt, and prints what the terminal showed (the command's
# output and anything echoed) as JSON with the exit code. A command still running at the
# deadline is killed, its output read so far kept.
import json, os, pty, select, signal, sys, time

def main():
    spec = json.loads(sys.stdin.read())
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(spec['argv'][0], spec['argv'], spec['env'])
    shown = b''
    since_answer = 0  # where the output after the last answer starts: each prompt is awaited anew
    answers = list(spec['answers'])
    deadline = time.time() + spec.get('timeoutSeconds', 30)
    while time.time() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
        if answers and shown[since_answer:].decode('utf8', 'replace').rstrip().endswith(answers[0]['after']):
            time.sleep(0.2)
            os.write(fd, answers.pop(0)['type'].encode('utf8'))
            since_answer = len(shown)
    status = None
    while status is None and time.time() < deadline:
        done, waited = os.waitpid(pid, os.WNOHANG)
        if done:
            status = waited
        else:
            time.sleep(0.05)
    if status is None:
        os.kill(pid, signal.SIGKILL)  # still running at the deadline (waiting for input it was never given)
        _, status = os.waitpid(pid, 0)
    print(json.dumps({'shown': shown.decode('utf8', 'replace'), 'code': os.waitstatus_to_exitcode(status)}))

main()
