// Command new-stage makes a stage of your own, a copy of an existing one to
// change and check, which git never sees.
//
// Usage:
//
//	go run ./scripts/new-stage [--from STAGE] NAME
//	go run ./scripts/new-stage --list
//	go run ./scripts/new-stage --remove NAME
//
// NAME is 1 to 40 lowercase letters, digits and dashes, starting with a
// letter. The copy leaves out the start's README.md and the tests that
// the exercise changes (those of the exercise's reference that differ or
// are missing), records its start in its go.mod (the "// origin:" line
// that scripts/check reads), passes go vet, and is listed in local.work, a
// copy of go.work that git ignores, as it ignores the new folder. Every run
// writes local.work and none removes it, so export GOWORK=$PWD/local.work
// (PowerShell: $env:GOWORK = "$PWD\local.work") keeps working once set; the
// commands of scripts/ find local.work without it. An error or Ctrl-C undoes
// everything. After a git pull that changed go.work, run --list.
//
// If a go command says "go: reading go.work: open local.work: no such file
// or directory", GOWORK names local.work before this command wrote it:
// GOWORK= go run ./scripts/new-stage --list writes it.
//
// The flags are:
//
//	--from STAGE
//		The stage to copy (default stage0-linear), a folder of go.work.
//	--list
//		The stages this command made, and local.work written again.
//	--remove
//		Delete the stage NAME and undo what made it.
//
// # Examples
//
//	go run ./scripts/new-stage ex3 --from stage2-noclone
//	go run ./scripts/new-stage mycache --from workshop/quest6-cache
//	go run ./scripts/new-stage --remove ex3
package main

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"example.com/userperf/scripts/internal/harness"
	"example.com/userperf/scripts/internal/stages"
)

var (
	c         = harness.New("new-stage")
	validName = regexp.MustCompile(`^[a-z]([a-z0-9-]{0,38}[a-z0-9])?$`)
	reserved  = regexp.MustCompile(`^(floor|common|scripts|peers|workshop|solutions|results|docs|bin|handins|stage[0-9].*|v[0-9]+)$`) // vN: Go reads example.com/userperf/vN as a major version
	mainName  = regexp.MustCompile(`api\.Main\("([^"]*)"`)
)

func main() {
	startFlag := c.Flags.String("from", "stage0-linear", "")
	remove, list := c.Flags.Bool("remove", false, ""), c.Flags.Bool("list", false, "")
	name := strings.Join(c.Parse(), " ") // more than one is not a valid name
	if *list {
		syncWorkspace()
		for _, d := range stages.Mine(".") {
			fmt.Printf("  %s from %s\n", d, stages.Origin(".", d))
		}
		if len(stages.Mine(".")) == 0 {
			fmt.Println("no stage made by new-stage here")
		}
		return
	} else if *remove {
		if !slices.Contains(stages.Mine("."), name) {
			c.Usage("--remove %q: not a stage made by new-stage (a folder whose go.mod has an origin line); nothing removed", name)
		}
		c.Fatal(os.RemoveAll(name))
		syncWorkspace()
		fmt.Printf("removed %s: its folder, and its line in local.work (which stays, so that GOWORK=$PWD/local.work still works)\n", name)
		return
	}

	start := strings.TrimPrefix(filepath.ToSlash(*startFlag), "./") // the folder of the stage copied
	if name == "" {
		c.Usage("name the new stage: go run ./scripts/new-stage NAME [--from STAGE] (--help for more)")
	} else if !validName.MatchString(name) || reserved.MatchString(name) {
		c.Usage("'%s' is not a valid name: use 1 to 40 lowercase letters, digits and dashes, starting with a letter, not stageN, vN (a module's major version to Go) or another name the repository uses", name)
	} else if _, err := os.Lstat(name); err == nil {
		c.Usage("%s already exists; pick another name, or --remove %s if this command made it", name, name)
	}
	// A name that another stage of the workspace has fails stages.Against below, which undoes the copy.
	mainGo, _ := os.ReadFile(filepath.Join(start, "main.go"))
	oldMain := mainName.FindStringSubmatch(string(mainGo))
	if oldMain == nil {
		c.Usage("--from %s: not a stage's folder, such as stage1-index or workshop/quest6-cache (no main.go with api.Main(\"NAME\", ...))", start)
	}

	c.Fatal(os.Mkdir(name, 0o755))
	made := false
	c.Cleanup(func() {
		if !made {
			fmt.Fprintf(os.Stderr, "new-stage: %s not made; undoing\n", name)
			os.RemoveAll(name)
			syncWorkspace()
		}
	})
	c.Fatal(os.CopyFS(name, os.DirFS(start)))
	if _, err := os.Stat(filepath.Join(name, "stage_test.go")); err != nil { // a side quest's bug has no shared suites
		suites, err := os.ReadFile(filepath.Join("stage0-linear", "stage_test.go"))
		c.Fatal(cmp.Or(err, os.WriteFile(filepath.Join(name, "stage_test.go"), suites, 0o644)))
	}
	c.Fatal(os.WriteFile(filepath.Join(name, ".gitignore"), []byte("# Made by scripts/new-stage: git ignores this whole folder, this file included.\n*\n"), 0o644))
	os.Remove(filepath.Join(name, "README.md")) // the start's notes (a solution's README.md), if any: not the copy's

	// The module and its start; the replace of common is one level up now.
	goMod := filepath.Join(name, "go.mod")
	c.Fatal(harness.Go("mod", "edit", "-module", "example.com/userperf/"+name, "-replace", "example.com/userperf/common=../common", goMod))
	mod, err := os.ReadFile(goMod)
	c.Fatal(err)
	mod = regexp.MustCompile(`(?m)^// origin: .*\n`).ReplaceAll(mod, nil)
	c.Fatal(os.WriteFile(goMod, fmt.Appendf(bytes.TrimRight(mod, "\n"), "\n\n// origin: %s (the stage this module started from; scripts/check reads this line)\n", start), 0o644))
	// The stage's name is in main.go alone: no stage imports its own module.
	rename := strings.NewReplacer(`api.Main("`+oldMain[1]+`"`, `api.Main("`+name+`"`, "// Command "+oldMain[1]+" ", "// Command "+name+" ")
	c.Fatal(os.WriteFile(filepath.Join(name, "main.go"), []byte(rename.Replace(string(mainGo))), 0o644))

	syncWorkspace()
	_, reference, err := stages.Against(c.Root, name, "")
	c.Fatal(err)
	if found, err := stages.Find(c.Root, reference); err == nil {
		leaveOutTests(name, start, reference, found[0].Dir)
	}
	fmt.Println("== go vet ./" + name)
	c.Fatal(harness.Go("vet", "./"+name))
	made = true
	fmt.Printf("\nmade %s/, a copy of %s, listed in local.work and kept out of git (git status shows nothing).\n", name, start)
	fmt.Printf("Next: export GOWORK=$PWD/local.work (once in each terminal), go test ./%[1]s, change it, go run ./scripts/check %[1]s;\n"+
		"at the end, go run ./scripts/new-stage --remove %[1]s (WORKSHOP.md says more)\n", name)
}

// leaveOutTests removes from name, a copy of start, the tests that reference, in folder refDir,
// lacks or changed: they test what the exercise changes, and would fail a right answer. A
// learner's own tests, in a copy of their stage, are theirs to keep.
func leaveOutTests(name, start, reference, refDir string) {
	// The project's stage that start was copied from, through the learner's copies of copies.
	project := start
	for n := 0; slices.Contains(stages.Mine("."), project) && n < 10; n++ { // the bound stops a loop of origin lines
		project = stages.Origin(".", project)
	}
	tests, _ := filepath.Glob(filepath.Join(start, "*_test.go")) // a pattern without errors
	for _, t := range tests {
		t = filepath.Base(t)
		mine, _ := os.ReadFile(filepath.Join(start, t))
		projects, projectErr := os.ReadFile(filepath.Join(project, t))
		theirs, err := os.ReadFile(filepath.Join(refDir, t))
		switch {
		case t == "stage_test.go":
		case project != start && (projectErr != nil || !bytes.Equal(mine, projects)):
			fmt.Printf("   kept %s: your own test (%s has none, or another)\n", t, project)
		case err != nil:
			c.Fatal(os.Remove(filepath.Join(name, t)))
			fmt.Printf("   left out %s: %s has no such test\n", t, reference)
		case !bytes.Equal(mine, theirs):
			c.Fatal(os.Remove(filepath.Join(name, t)))
			fmt.Printf("   left out %s: %s's differs, since it tests what the exercise changes\n", t, reference)
		}
	}
}

// syncWorkspace writes local.work: go.work and a use line for each stage made here, beside
// go.work.sum's copy. It stays when the last stage is removed, so that a shell whose GOWORK names
// it still runs the go command.
func syncWorkspace() {
	work, err := os.ReadFile("go.work")
	c.Fatal(err)
	for _, d := range stages.Mine(".") {
		work = fmt.Appendf(work, "use ./%s\n", d)
	}
	c.Fatal(replaceFile("local.work", work))
	if _, err := os.Stat("local.work.sum"); err != nil {
		sum, _ := os.ReadFile("go.work.sum") // nothing to fetch again; none is fine
		c.Fatal(replaceFile("local.work.sum", sum))
	}
	os.Setenv("GOWORK", filepath.Join(c.Root, "local.work"))
}

// replaceFile writes data to a new file beside file and renames it over file, so that a go command
// that reads it in another shell meanwhile reads the old file or the new, never half.
func replaceFile(file string, data []byte) error {
	tmp, err := os.CreateTemp(".", "local-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if err = cmp.Or(err, tmp.Close()); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}
