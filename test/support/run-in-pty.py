# Runs a command on a pseudo-terminal, as a person at a terminal runs it: types each line of
# its input once the output so far ends with the given prompt, and prints what the terminal
# showed (the command's output and anything echoed) as JSON with the exit code.
import json, os, pty, select, signal, sys, time

def main():
    spec = json.loads(sys.stdin.read())
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(spec['argv'][0], spec['argv'], spec['env'])
    shown = b''
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
        if answers and shown.decode('utf8', 'replace').rstrip().endswith(answers[0]['after']):
            time.sleep(0.2)
            os.write(fd, answers.pop(0)['type'].encode('utf8'))
    else:
        os.kill(pid, signal.SIGKILL)  # still waiting for input it was never given
    _, status = os.waitpid(pid, 0)
    print(json.dumps({'shown': shown.decode('utf8', 'replace'), 'code': os.waitstatus_to_exitcode(status)}))

main()
