package main

import (
	"slices"
	"testing"
)

// The answers come from the repository itself: the floor, stage0 and stage1
// are there in every version of it.
func TestAnswer(t *testing.T) {
	t.Setenv("GOWORK", "")
	root := "../../.."
	list, err := answer(root, []string{"list"})
	if err != nil || len(list) < 2 || list[0] != "stage0-linear" || list[len(list)-1] != "floor" {
		t.Errorf("list = %q, %v; want stage0-linear first and the floor last", list, err)
	}
	dirs, err := answer(root, []string{"dir", "floor", "stage0-linear"})
	if want := []string{"floor", "stage0-linear"}; err != nil || !slices.Equal(dirs, want) {
		t.Errorf("dir = %q, %v; want %q", dirs, err, want)
	}
	against, err := answer(root, []string{"against", "stage1-index"})
	if want := []string{"stage0-linear -"}; err != nil || !slices.Equal(against, want) {
		t.Errorf("against = %q, %v; want %q", against, err, want)
	}
	for _, args := range [][]string{{}, {"dir"}, {"dir", "stage0-linear", "nosuch"}, {"against"}, {"what"}} {
		if out, err := answer(root, args); err == nil {
			t.Errorf("answer(%q) = %q, no error", args, out)
		}
	}
}
