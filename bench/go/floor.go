package main

// The floor of a fire completed by a foreign thread (the way Go's Fire(ctx) worked before
// oh_hooks_fire_reserved): a goroutine asks a sleeping C thread (a cgo call and a condvar
// signal), the C thread calls into Go (a cgo callback from a thread Go did not start) and sends
// on a channel, and the goroutine wakes. What that mechanism costs here without any engine.

/*
int bench_floor_start(void);
void bench_floor_kick(void);
*/
import "C"

var floorCh = make(chan struct{}, 1)

//export benchFloorWake
func benchFloorWake() { floorCh <- struct{}{} }

func startFloor() {
	if C.bench_floor_start() != 0 {
		fail("cannot start the floor's C thread")
	}
}

// floorRoundTrip wakes the C thread and waits for it to wake this goroutine.
func floorRoundTrip() {
	C.bench_floor_kick()
	<-floorCh
}
