package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// state is what the learner did, kept in the user's configuration folder (userperf/learn.json),
// as handin keeps the participant's id there: it survives a new clone of the repository.
type state struct {
	Current     string                 `json:"current,omitempty"` // the question learn shows, set by goto; "" for the first not measured
	Predictions map[string]string      `json:"predictions"`       // by question
	Measured    map[string]measurement `json:"measured"`          // by question
	Hints       map[string]int         `json:"hints"`             // hints shown, by exercise
}

// measurement is what a run of a question measured.
type measurement struct {
	Shown     string  `json:"shown"`               // the value, as printed beside the prediction: 1.8x, 41 allocs/op
	Value     float64 `json:"value"`               // its number, for how close the guess came
	Base      float64 `json:"base,omitempty"`      // the first stage's, in the same unit: the direction of a count
	Verdict   string  `json:"verdict"`             // internal/results' line at the question's first row
	Predicted string  `json:"predicted,omitempty"` // the prediction it was measured against, or "" (--no-predict)
}

// statePath is where the state lives.
func statePath() (string, error) {
	config, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no configuration folder to keep your progress in: %v", err)
	}
	return filepath.Join(config, "userperf", "learn.json"), nil
}

// load reads the state, or an empty one before the first prediction.
func load() (*state, error) {
	s := &state{Predictions: map[string]string{}, Measured: map[string]measurement{}, Hints: map[string]int{}}
	path, err := statePath()
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	} else if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, s); err != nil {
		return nil, fmt.Errorf("%s: %v (learn reset starts again)", path, err)
	}
	if s.Predictions == nil || s.Measured == nil || s.Hints == nil { // a file that lacks one
		return nil, fmt.Errorf("%s: incomplete (learn reset starts again)", path)
	}
	return s, nil
}

// save writes the state, through a temporary file, so that an interrupted save keeps the last.
func (s *state) save() error {
	path, err := statePath()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	data, _ := json.MarshalIndent(s, "", "  ") // maps of strings and numbers: no error
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// reset forgets the state: the file goes.
func reset() error {
	path, err := statePath()
	if err == nil {
		if err = os.Remove(path); errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
	}
	return err
}
