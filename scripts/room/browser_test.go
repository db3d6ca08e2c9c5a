package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium returns the path of a Chromium or Chrome, or "".
func chromium() string {
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	return ""
}

// handIn is a hand-in of several exercises: for each, "ex1 stage0-linear 4.3 3x" (a ratio the check
// could tell), "ex2 stage1-index ?1.04 1.2x" (one it could not), "ex3 stage2-noclone FAILED -" (no prediction).
func handIn(who, id string, exercises ...string) string {
	file := fmt.Sprintf("participant: %s\nid: %s\nmachine-cpu: Test CPU\nmachine-cores: 8\ncommit: 8899ddb\n", who, id)
	for _, e := range exercises {
		var ex, origin, ratio, guess string
		fmt.Sscan(e, &ex, &origin, &ratio, &guess)
		file += fmt.Sprintf("origin-%s: %s\n", ex, origin)
		if guess != "-" {
			file += fmt.Sprintf("predicted-%s: %s\n", ex, guess)
		}
		switch r, unsure := strings.CutPrefix(ratio, "?"); {
		case ratio == "FAILED":
			file += fmt.Sprintf("verdict-%s: FAILED: the differential tests (TestDifferential)\n", ex)
		case unsure:
			file += fmt.Sprintf("verdict-%s: passed: no difference from %s: cannot tell on this machine (CPU time)\nspeedup-%s-origin: %s\n", ex, origin, ex, r)
		default:
			file += fmt.Sprintf("verdict-%s: passed: %sx faster than %s (CPU time)\nspeedup-%s-origin: %s\n", ex, r, origin, ex, r)
		}
	}
	return file
}

// TestPageInBrowser serves a room of three participants, loads its page in
// headless Chromium at a projector's 1280x720, and checks what it shows:
// three rows, a name holding <script> as text, predictions beside the
// measurements, no stray stage, and a page and chart that fit. With
// USERPERF_SCREENSHOT=1 it writes the screenshot to docs/room.png.
func TestPageInBrowser(t *testing.T) {
	browser := chromium()
	if browser == "" {
		t.Skip("no Chromium or Chrome found (/usr/bin/chromium, or chromium, google-chrome on PATH): the page is not checked in a browser")
	}
	_, url := startRoom(t, t.TempDir())
	for _, h := range []string{
		handIn("Ada Lovelace", "aaaaaaaa1111", "ex1 stage0-linear 4.3 3x", "ex2 stage1-index 1.28 2x", "ex3 stage2-noclone 2.4 1.5x",
			"ex4 stage3-parallel 2.1 3x", "ex5 stage4-append 1.9 -"),
		handIn("Grace Hopper", "bbbbbbbb2222", "ex1 stage0-linear 3.8 10x", "ex2 stage1-index ?1.04 1.2x", "ex3 stage2-noclone FAILED 2x",
			"bug1 ex1 FAILED -", "bug2 ex1 FAILED -"),
		handIn("Ken <script>", "cccccccc3333", "ex1 stage0-linear 5.1 2x", "ex2 stage1-index 1.31 1.3x",
			"ex3 stage2-noclone 2.9 2x", "ex4 stage3-parallel ?1.02 1.5x"),
	} {
		if code, reply := post(t, url, h); code != 200 {
			t.Fatalf("%d %s", code, reply)
		}
	}

	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(browser), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 720),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ctx, cancel = chromedp.NewExecAllocator(ctx, opts...)
	defer cancel()
	ctx, cancel = chromedp.NewContext(ctx)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 720), chromedp.Navigate(url+"/"), chromedp.WaitVisible(chromedp.CSS("svg"))); err != nil {
		t.Fatal(err)
	}

	// What a person reads: the rows' first cells, the headers, and the cells' text.
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[struct {
		Who, Headers []string
		Cells        [][]string
		Scripts      int
		Width        int
		Height       int
		Outside      []string
	}](`(() => {
		const text = (e) => e.innerText.replace(/\s+/g, " ").trim();
		const svg = document.querySelector("svg"), box = svg.viewBox.baseVal;
		return {
			Who: [...document.querySelectorAll("tr.participant td.who")].map((td) => td.firstChild.textContent),
			Headers: [...document.querySelectorAll("thead th")].map(text),
			Cells: [...document.querySelectorAll("tr.participant")].map((tr) => [...tr.cells].slice(1).map(text)),
			Scripts: document.scripts.length,
			Width: document.documentElement.scrollWidth,
			Height: document.documentElement.scrollHeight,
			// The chart's words and marks that stand outside its canvas, clipped.
			Outside: [...svg.querySelectorAll("text, circle, path, rect")].filter((e) => {
				const b = e.getBBox();
				return b.x < box.x || b.y < box.y || b.x + b.width > box.x + box.width || b.y + b.height > box.y + box.height;
			}).map((e) => e.outerHTML),
		};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Ada Lovelace", "Grace Hopper", "Ken <script>"}; fmt.Sprint(shown.Who) != fmt.Sprint(want) {
		t.Errorf("the rows show %q, want %q", shown.Who, want)
	}
	if shown.Scripts != 0 {
		t.Errorf("the page runs %d script(s): a name was taken as HTML", shown.Scripts)
	}
	if want := "who ex1 from stage0-linear ex2 from stage1-index ex3 from stage2-noclone ex4 from stage3-parallel ex5 from stage4-append"; strings.Join(shown.Headers, " ") != want {
		t.Errorf("the headers are %q, want %q (one column per exercise, bug copies left out)", shown.Headers, want)
	}
	for _, c := range []struct {
		row, col int
		want     string
	}{
		{0, 0, "✓ 4.3x guess 3x"},     // Ada's ex1: told, predicted
		{1, 1, "✓ 1.04x? guess 1.2x"}, // Grace's ex2: cannot tell, marked
		{1, 2, "✗ wrong guess 2x"},    // Grace's ex3: failed
		{2, 4, "—"},                   // Ken's ex5: not handed in
	} {
		if len(shown.Cells) <= c.row || len(shown.Cells[c.row]) <= c.col || shown.Cells[c.row][c.col] != c.want {
			t.Errorf("cell %d,%d: want %q in %q", c.row, c.col, c.want, shown.Cells)
		}
	}
	if shown.Width > 1280 || shown.Height > 720 {
		t.Errorf("the page is %dx%d, more than the projector's 1280x720 with three participants", shown.Width, shown.Height)
	}
	if len(shown.Outside) > 0 {
		t.Errorf("the chart draws outside its canvas: %q", shown.Outside)
	}

	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "room.png")
	if os.Getenv("USERPERF_SCREENSHOT") == "1" {
		out = filepath.Join("..", "..", "docs", "room.png")
	}
	if err := os.WriteFile(out, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("the screenshot: %s", out)

	// A fourth hand-in reaches the page that is open, with no one touching it.
	if code, reply := post(t, url, handIn("Linus", "dddddddd4444", "ex1 stage0-linear 2.2 2x")); code != 200 {
		t.Fatalf("%d %s", code, reply)
	}
	deadline := time.Now().Add(3 * refreshSeconds * time.Second)
	for rows := 0; rows != 4; {
		if time.Now().After(deadline) {
			t.Fatalf("the open page still shows %d participants %ds after a fourth hand-in: it does not refresh", rows, 3*refreshSeconds)
		}
		time.Sleep(500 * time.Millisecond)
		rows, err = chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("tr.participant").length`))
		if err != nil && !strings.Contains(err.Error(), "context") { // a navigation may interrupt the evaluation
			t.Logf("evaluating while the page reloads: %v", err)
		}
	}
}
