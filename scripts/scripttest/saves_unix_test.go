//go:build unix

package scripttest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

func init() { commands["saves"] = saves }

// saves name [arg...] -- text [file=source text]... runs a command of scripts/ in a process group of
// its own, as a terminal runs it; waits until its output says text, then saves source over file
// (copies it, as an editor saves) and waits for the next text, output after the save; after the last,
// sends the group SIGINT, as Ctrl-C does. It fails if a text does not come within two minutes, or if
// the command does not stop within a minute of the SIGINT; the output is the script's stdout.
func saves(ts *testscript.TestScript, neg bool, args []string) {
	i := -1
	for j, a := range args {
		if a == "--" {
			i = j
			break
		}
	}
	if neg || i < 1 || len(args) == i+1 || (len(args)-i)%2 != 0 {
		ts.Fatalf("usage: saves name [arg...] -- text [file=source text]...")
	}
	cmd := exec.Command(filepath.Join(bin, args[0]), args[1:i]...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = append(os.Environ(), "GOWORK=", "PATH="+ts.Getenv("PATH"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := os.Create(filepath.Join(ts.Getenv("WORK"), ".tmp", "saves.out"))
	ts.Check(err)
	defer out.Close()
	cmd.Stdout, cmd.Stderr = out, out
	ts.Check(cmd.Start())
	defer func() {
		data, _ := os.ReadFile(out.Name())
		ts.Stdout().Write(data)
	}()
	from := 0 // the output before the last save is not looked at again
	wait := func(text string) {
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
			data, _ := os.ReadFile(out.Name())
			if k := strings.Index(string(data[from:]), text); k >= 0 {
				from += k + len(text)
				return
			}
			if time.Now().After(deadline) {
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				cmd.Wait()
				ts.Fatalf("%s did not say %q within two minutes:\n%s", args[0], text, data[from:])
			}
		}
	}
	steps := args[i+1:]
	wait(steps[0])
	for k := 1; k < len(steps); k += 2 {
		file, source, ok := strings.Cut(steps[k], "=")
		if !ok {
			ts.Fatalf("saves: %s: want file=source", steps[k])
		}
		data, err := os.ReadFile(ts.MkAbs(source))
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(file), data, 0o644))
		wait(steps[k+1])
	}
	ts.Check(syscall.Kill(-cmd.Process.Pid, syscall.SIGINT))
	stopped := make(chan error, 1)
	go func() { stopped <- cmd.Wait() }()
	select {
	case <-stopped:
	case <-time.After(time.Minute):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		ts.Fatalf("%s did not stop within a minute of Ctrl-C", args[0])
	}
}
