package apitest

import (
	"example.com/userperf/common/api"
	"example.com/userperf/common/apitest/plain"
	"example.com/userperf/common/user"
)

// NewReference returns the Reference holding users, the slowest obvious
// stage: the Model behind one mutex (plain.Locked), every list sorted and
// marshaled by encoding/json on every request. It is what the differential
// tests compare every stage with, so it is written to be easy to believe,
// not fast; TestReference holds it to the same contract that Run holds every
// stage to. It is an api.NewStage.
func NewReference(users []user.User) api.Stage {
	return plain.NewLocked(users)
}
