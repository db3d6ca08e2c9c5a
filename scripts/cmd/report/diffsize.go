package main

import (
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"example.com/userperf/scripts/internal/stages"
)

// diffSize says how much non-test Go code differs between the stage folders
// a and b under root: "5 files, 157 lines", the lines added plus the lines
// removed, as git diff --no-index --numstat counts them (every file is
// compared with the file of the same name; none is taken for a renamed
// one). A folder that is missing, or a count that fails, gives "?".
func diffSize(root, a, b string) string {
	for _, dir := range []string{a, b} {
		if info, err := os.Stat(filepath.Join(root, dir)); dir == "" || err != nil || !info.IsDir() {
			return "?"
		}
	}
	cmd := exec.Command("git", "diff", "--no-index", "--no-renames", "--numstat", "--", a, b)
	cmd.Dir = root
	out, err := cmd.Output() // exit status 1 means "they differ"
	if exit, ok := err.(*exec.ExitError); err != nil && !(ok && exit.ExitCode() == 1) {
		return "?"
	}
	files, lines := 0, 0
	for _, row := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.SplitN(row, "\t", 3)
		if len(fields) != 3 || !isCode(fields[2]) {
			continue
		}
		added, err1 := strconv.Atoi(fields[0])
		removed, err2 := strconv.Atoi(fields[1])
		if err1 != nil || err2 != nil {
			return "?"
		}
		files, lines = files+1, lines+added+removed
	}
	return fmt.Sprintf("%d files, %d lines", files, lines)
}

// isCode reports whether a --numstat path ("{a => b}/store.go",
// "/dev/null => b/new.go", "a/gone.go => /dev/null") names a non-test Go
// file.
func isCode(numstatPath string) bool {
	sides := strings.Split(numstatPath, " => ")
	name := sides[len(sides)-1]
	if name == "/dev/null" {
		name = sides[0]
	}
	name = path.Base(strings.Trim(name, "{}"))
	return strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go")
}

// dirOf is the folder of the stage called name in list, in the form of the
// operating system, or "" if there is none.
func dirOf(list []stages.Stage, name string) string {
	for _, s := range list {
		if s.Name == name {
			return filepath.FromSlash(s.Dir)
		}
	}
	return ""
}
