package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"example.com/userperf/scripts/internal/testevents"
)

var (
	sharedTest = regexp.MustCompile(`^(TestAPI|TestDifferential|Fuzz.*|Benchmark.*|Example.*)$`)
	message    = regexp.MustCompile(`^(\s+)[\w.-]+\.go:\d+: `)
	goroutine  = regexp.MustCompile(`^goroutine \d+ \[([^,\]]+)`)
	lockWait   = regexp.MustCompile(`Mutex|sync\.Cond|WaitGroup|semacquire`)
)

// raced reports whether the race detector spoke: a race in a goroutine
// that outlives its test fails no test.
func raced(run *testevents.Run) bool {
	return slices.ContainsFunc(run.Lines, func(e testevents.Event) bool { return e.Output == "WARNING: DATA RACE\n" })
}

// summarize writes what failed in run: the failing tests, a test's first
// message with the lines under it (the request it sent), both sides of the
// first data race, the first panic, and after a timeout the goroutines that
// wait for a lock.
func summarize(w io.Writer, run *testevents.Run, log string) {
	fmt.Fprintf(w, "\n-- what failed (the whole output: %s)\n", log)
	for _, e := range run.Failed {
		fmt.Fprintf(w, "   --- FAIL: %s\n", e.Test)
	}
	text := make([]string, len(run.Lines))
	for i, e := range run.Lines {
		text[i] = strings.TrimRight(e.Output, "\n")
	}
	if i := slices.IndexFunc(run.Lines, func(e testevents.Event) bool { return e.Test != "" && message.MatchString(e.Output) }); i >= 0 {
		indent := len(message.FindStringSubmatch(text[i])[1])
		for n, l := range text[i:min(len(text), i+14)] {
			if n > 0 && len(l)-len(strings.TrimLeft(l, " \t")) <= indent {
				break
			}
			fmt.Fprintf(w, "   %s\n", l[indent:])
		}
	}
	// Each side of the race is an access and its stack: its first three frames
	// show where, up to the stacks of the goroutines' creation.
	if i := slices.Index(text, "WARNING: DATA RACE"); i >= 0 {
		frame := 0
		for _, l := range text[i:] {
			if strings.HasPrefix(l, "Goroutine ") || strings.HasPrefix(l, "=====") {
				break
			} else if frame++; !strings.HasPrefix(l, " ") {
				frame = 0
			}
			if l != "" && frame <= 6 {
				fmt.Fprintf(w, "   %s\n", l)
			}
		}
	}
	if i := slices.IndexFunc(text, func(l string) bool { return strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ") }); i >= 0 {
		fmt.Fprintf(w, "   %s\n", text[i])
		if strings.HasPrefix(text[i], "panic: test timed out") {
			lockWaits(w, text, run.Lines[i].Test)
		}
	}
}

// lockWaits names, after a test timed out, the goroutines that wait for a
// lock, by the lock and the line of the stage's code that asked for it: a
// deadlock, when nothing else runs.
func lockWaits(w io.Writer, dump []string, test string) {
	fmt.Fprintf(w, "   %s ran over %s: usually a deadlock. Goroutines waiting for a lock, where the stage asked for it:\n", cmp.Or(test, "a test"), timeout)
	waits := map[string]int{}
	lock, fn := "", ""
	for _, l := range dump {
		if m := goroutine.FindStringSubmatch(l); m != nil {
			lock = map[bool]string{true: m[1]}[lockWait.MatchString(m[1])]
		} else if lock != "" && !strings.HasPrefix(l, "\t") {
			fn = path.Base(l[:max(0, strings.LastIndex(l, "("))])
		} else if lock != "" && strings.Contains(l, "/"+dir+"/") {
			waits[fmt.Sprintf("waiting for %s in %s (%s)", lock, fn, path.Base(strings.Fields(l)[0]))]++
			lock = ""
		}
	}
	keys := slices.SortedFunc(maps.Keys(waits), func(a, b string) int { return cmp.Or(waits[b]-waits[a], strings.Compare(a, b)) })
	for _, k := range keys[:min(8, len(keys))] {
		fmt.Fprintf(w, "     %d %s %s\n", waits[k], map[bool]string{true: "goroutine", false: "goroutines"}[waits[k] == 1], k)
	}
	fmt.Fprintf(w, "   (on a slow machine that is not deadlocked: USERPERF_CHECK_TIMEOUT=5m go run ./scripts/check %s)\n", dir)
}
