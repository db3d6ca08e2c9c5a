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

func init() { commands["interrupt"] = interrupt }

// interrupt text name [arg...] runs a command of scripts/ in a process
// group of its own, as a terminal runs it, and once its output says text,
// sends the group SIGINT, as Ctrl-C does: the command and the benchmark it
// runs. It fails as the command fails; the command's output is the
// script's stdout and stderr.
func interrupt(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: interrupt text name [arg...]")
	}
	text, name := args[0], args[1]
	cmd := exec.Command(filepath.Join(bin, name), args[2:]...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = append(os.Environ(), "GOWORK=", "PATH="+ts.Getenv("PATH"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Files, not buffers: the output is read while the command writes it.
	stdout, err := os.Create(filepath.Join(ts.Getenv("WORK"), ".tmp", "interrupt.stdout"))
	ts.Check(err)
	defer stdout.Close()
	stderr, err := os.Create(filepath.Join(ts.Getenv("WORK"), ".tmp", "interrupt.stderr"))
	ts.Check(err)
	defer stderr.Close()
	cmd.Stdout, cmd.Stderr = stdout, stderr
	ts.Check(cmd.Start())
	output := func() (string, string) {
		out, _ := os.ReadFile(stdout.Name())
		errs, _ := os.ReadFile(stderr.Name())
		return string(out), string(errs)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if out, errs := output(); strings.Contains(out+errs, text) {
			break
		}
		if time.Now().After(deadline) {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			cmd.Wait()
			out, errs := output()
			ts.Fatalf("%s did not say %q within a minute:\n%s%s", name, text, out, errs)
		}
	}
	ts.Check(syscall.Kill(-cmd.Process.Pid, syscall.SIGINT))
	err = cmd.Wait()
	out, errs := output()
	ts.Stdout().Write([]byte(out))
	ts.Stderr().Write([]byte(errs))
	switch {
	case err != nil && !neg:
		ts.Fatalf("%s: %v", name, err)
	case err == nil && neg:
		ts.Fatalf("%s succeeded once interrupted", name)
	}
}
