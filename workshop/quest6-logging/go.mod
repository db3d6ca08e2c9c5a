module example.com/userperf/workshop/quest6-logging

go 1.26

require example.com/userperf/common v0.0.0

// origin: stage2-noclone (the stage this module started from; scripts/check.sh reads this line)

// The stages are built inside this repository's workspace; the replace also lets
// one stage be built on its own with GOWORK=off.
replace example.com/userperf/common => ../../common
