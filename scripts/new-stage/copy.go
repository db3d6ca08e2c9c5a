package main

import (
	"cmp"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/stages"
)

// copyStage copies the files of folder from that git tracks into to, or,
// for a stage made here, which git does not track, all but the leftovers
// of builds and tests.
func copyStage(from, to string) error {
	out, err := exec.Command("git", "-C", from, "ls-files", "-z").Output()
	files := strings.Split(strings.TrimRight(string(out), "\x00"), "\x00")
	if err != nil || len(out) == 0 {
		files = nil
		err = filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
			rel, _ := filepath.Rel(from, p)
			leftover := strings.TrimSuffix(rel, ".exe") == filepath.Base(from) || strings.HasSuffix(p, ".test") || strings.HasSuffix(p, ".pprof") || strings.HasSuffix(p, ".prof")
			if err == nil && d.Type().IsRegular() && !leftover {
				files = append(files, rel)
			}
			return err
		})
	}
	for _, f := range files {
		if err == nil {
			err = copyFile(filepath.Join(from, f), filepath.Join(to, f))
		}
	}
	return err
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	info, err2 := os.Stat(from)
	if err = cmp.Or(err, err2, os.MkdirAll(filepath.Dir(to), 0o755)); err != nil {
		return err
	}
	return os.WriteFile(to, data, info.Mode().Perm())
}

// syncWorkspace writes local.work, go.work and the stages made here, or
// removes it when there are none; the go command reads it from here on.
func syncWorkspace(c *harness.Cmd) {
	mine := stages.Mine(".")
	if len(mine) == 0 {
		os.Remove("local.work")
		os.Remove("local.work.sum")
		os.Unsetenv("GOWORK")
		return
	}
	c.Fatal(copyFile("go.work", "local.work"))
	if _, err := os.Stat("local.work.sum"); err != nil {
		copyFile("go.work.sum", "local.work.sum") // nothing to fetch again; none is fine
	}
	os.Setenv("GOWORK", filepath.Join(c.Root, "local.work"))
	for i := range mine {
		mine[i] = "./" + mine[i]
	}
	c.Fatal(harness.Go(append([]string{"work", "use"}, mine...)...))
}
