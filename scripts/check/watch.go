package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"example.com/userperf/scripts/internal/testevents"
)

// afterWatch is the flag that --watch gives the check it starts once its own tests pass: that
// check goes straight to the speed step.
const afterWatch = "after-watch"

// watch checks the stage on every save in its folder until Ctrl-C: go vet and its tests (without
// the race detector, in seconds), then, once they pass, the speed step and its verdict, in a check
// of its own. A save while a step runs stops it and starts again.
func (k *check) watch() {
	args := slices.DeleteFunc(slices.Clone(os.Args[1:]), func(a string) bool { return a == "--watch" || a == "-watch" })
	self, err := os.Executable()
	k.Fatal(err)
	k.Fatal(os.MkdirAll(k.watchLogs(), 0o755))
	watching, stop := context.WithCancel(context.Background())
	var running sync.Mutex
	k.Cleanup(func() { stop(); running.Lock() }) // Ctrl-C: the running step ends before the watch does
	fmt.Printf("check: watching %s; every save checks it again (Ctrl-C stops)\n", k.stage.Dir)
	seen, changed := snapshot(k.stage.Dir), make(chan string, 1)
	for {
		ctx, saved := context.WithCancel(watching)
		go func() {
			var file string
			seen, file = k.nextSave(seen)
			changed <- file
			saved()
		}()
		running.Lock()
		if what := k.cycle(ctx, self, args); ctx.Err() == nil { // else a save or Ctrl-C stopped it
			if what != "" {
				fmt.Printf("\ncheck: %s %s\n", k.stage.Name, what)
			}
			fmt.Printf("\ncheck: waiting for a save in %s (Ctrl-C stops)\n", k.stage.Dir)
		}
		running.Unlock()
		fmt.Printf("\n== %s saved: checking %s again\n", <-changed, k.stage.Name)
	}
}

// cycle is one check of the watch: vet, the tests with a progress line, then the speed step. It
// returns what it came to, if the check's own output does not say it.
func (k *check) cycle(ctx context.Context, self string, args []string) string {
	began := time.Now()
	fmt.Printf("== watch 1/3: go vet ./%s\n", k.stage.Dir)
	if err := k.command(ctx, "go", "vet", "./"+k.stage.Dir).Run(); err != nil {
		return "go vet failed (above)"
	}
	fmt.Printf("== watch 2/3: go test ./%s (without -race, which the check itself runs)\n", k.stage.Dir)
	counted := filepath.Join(k.watchLogs(), "total.txt")
	total := "? (the first run counts them)"
	if data, err := os.ReadFile(counted); err == nil {
		total = strings.TrimSpace(string(data))
	}
	log, err := os.Create(filepath.Join(k.watchLogs(), "tests.log"))
	if err != nil { // not Fatal: its clean-up waits for this cycle
		return err.Error()
	}
	defer log.Close()
	test := k.command(ctx, "go", "test", "-count=1", "-json", "./"+k.stage.Dir)
	test.Stdout = nil
	run, err := testevents.Start(test, log, os.Stdout)
	if err == nil {
		stop := liveLine(os.Stdout, 500*time.Millisecond, func() string { return fmt.Sprintf("tests done: %d of %s", run.Tests.Load(), total) })
		err = run.Wait()
		stop()
	}
	if ctx.Err() != nil {
		return ""
	} else if err != nil || len(run.Failed) > 0 {
		whatFailed(run.Failed)
		return fmt.Sprintf("FAILED: the tests of %s (%s says all)", k.stage.Name, filepath.ToSlash(log.Name()))
	}
	os.WriteFile(counted, fmt.Appendf(nil, "%d\n", run.Tests.Load()), 0o644) // without it, the next total is unknown
	fmt.Printf("   ok (%[1]s)\n== watch 3/3: the speed (go run ./scripts/check %[2]s also runs the tests under -race)\n", time.Since(began).Round(time.Second), k.stage.Name)
	if err := k.command(ctx, self, append([]string{"--" + afterWatch}, args...)...).Run(); err != nil {
		return "the check failed (above)"
	}
	return ""
}

// liveLine prints line over itself every interval until stop, which prints it a last time and ends it.
func liveLine(w io.Writer, every time.Duration, line func() string) (stop func()) {
	ended, printing := make(chan struct{}), sync.WaitGroup{}
	printing.Go(func() {
		for tick := time.Tick(every); ; {
			select {
			case <-ended:
				return
			case <-tick:
				fmt.Fprintf(w, "\r   %s", line())
			}
		}
	})
	return func() {
		close(ended)
		printing.Wait() // a tick that came with the end prints before the last line, not after it
		fmt.Fprintf(w, "\r   %s\n", line())
	}
}

// watchLogs is the folder of the watch's own files: results/watch/STAGE (the check's own are cleared by each check).
func (k *check) watchLogs() string { return filepath.Join("results", "watch", k.stage.Name) }

// command is a child of the watch that a save or Ctrl-C interrupts, as Ctrl-C in a terminal would.
func (k *check) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Cancel = func() error { // an interrupt lets the child clean up; Windows has none to send
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
	cmd.WaitDelay = 30 * time.Second
	return cmd
}

// nextSave waits for a save in the stage's folder, whose files were seen, and returns its files
// then and one that the save changed.
func (k *check) nextSave(seen map[string]string) (map[string]string, string) {
	for changed := ""; ; {
		time.Sleep(250 * time.Millisecond)
		now := snapshot(k.stage.Dir)
		if file := firstChange(seen, now); file != "" {
			changed = cmp.Or(changed, file)
		} else if changed != "" { // a save is often several writes: the folder is quiet again
			return now, changed
		}
		seen = now
	}
}

// snapshot is each file of the stage's folder with its size and modification time.
func snapshot(dir string) map[string]string {
	files := map[string]string{}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				files[path] = fmt.Sprint(info.Size(), info.ModTime().UnixNano())
			}
		}
		return nil // a file removed while walking is a change the next snapshot sees
	})
	return files
}

// firstChange names a file that differs between two snapshots, or "" if none does.
func firstChange(before, after map[string]string) string {
	for _, files := range []map[string]string{after, before} {
		for path := range files {
			if before[path] != after[path] {
				return filepath.ToSlash(path)
			}
		}
	}
	return ""
}
