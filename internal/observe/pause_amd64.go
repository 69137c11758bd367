package observe

// pauseTicks runs n PAUSE instructions and returns the TSC ticks they took (pause_amd64.s).
func pauseTicks(n int64) int64

const havePause = true

var noPause = ""
