package main

// raceEnabled is set by race_test.go when the tests are built with -race.
var raceEnabled bool
