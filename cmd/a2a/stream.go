package main

import (
	"fmt"
	"io"
	"iter"
	"sync"
	"time"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
)

// streamPrinter writes the events of a stream for people as they arrive:
// the task, each status change on a line of its own, and artifact chunks
// appended in place on their artifact's line. On a terminal a spinner runs
// while the task is WORKING and nothing else is being written; elsewhere
// the output is plain lines.
type streamPrinter struct {
	w        io.Writer
	terminal bool

	mu           sync.Mutex
	midLine      bool   // an artifact's chunks are being written on the current line
	artifactID   string // the artifact of that line
	working      bool
	spinnerDrawn bool
	frame        int
	stop         chan struct{}
	stopped      chan struct{}
}

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func newStreamPrinter(w io.Writer, terminal bool) *streamPrinter {
	p := &streamPrinter{w: w, terminal: terminal}
	if terminal {
		p.stop, p.stopped = make(chan struct{}), make(chan struct{})
		go p.spin()
	}
	return p
}

// spin redraws the spinner while the task is WORKING.
func (p *streamPrinter) spin() {
	defer close(p.stopped)
	tick := time.NewTicker(120 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-tick.C:
			p.mu.Lock()
			if p.working && !p.midLine {
				p.frame = (p.frame + 1) % len(spinnerFrames)
				fmt.Fprintf(p.w, "\r%s working…", spinnerFrames[p.frame])
				p.spinnerDrawn = true
			}
			p.mu.Unlock()
		}
	}
}

// clearSpinner erases the spinner's line; p.mu is held.
func (p *streamPrinter) clearSpinner() {
	if p.spinnerDrawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.spinnerDrawn = false
	}
}

// endLine ends a line of artifact chunks; p.mu is held.
func (p *streamPrinter) endLine() {
	if p.midLine {
		fmt.Fprintln(p.w)
		p.midLine = false
		p.artifactID = ""
	}
}

// event writes one event.
func (p *streamPrinter) event(ev *a2av1.StreamResponse) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearSpinner()
	switch e := ev.GetPayload().(type) {
	case *a2av1.StreamResponse_Task:
		p.endLine()
		printTask(p.w, e.Task, false)
		p.working = e.Task.GetStatus().GetState() == a2av1.TaskState_TASK_STATE_WORKING
	case *a2av1.StreamResponse_Message:
		p.endLine()
		printMessage(p.w, e.Message)
	case *a2av1.StreamResponse_StatusUpdate:
		p.endLine()
		st := e.StatusUpdate.GetStatus()
		line := st.GetState().Short()
		if text := describeMessage(st.GetMessage()); text != "" {
			line += "  " + indentMore(text, "  ")
		}
		fmt.Fprintln(p.w, line)
		p.working = st.GetState() == a2av1.TaskState_TASK_STATE_WORKING
	case *a2av1.StreamResponse_ArtifactUpdate:
		p.artifactChunk(e.ArtifactUpdate)
	}
}

// artifactChunk appends a chunk to its artifact's line, or starts the line.
func (p *streamPrinter) artifactChunk(u *a2av1.TaskArtifactUpdateEvent) {
	art := u.GetArtifact()
	if !(p.midLine && u.GetAppend() && p.artifactID == art.GetArtifactId()) {
		p.endLine()
		fmt.Fprintf(p.w, "artifact %s: ", artifactName(art))
		p.artifactID = art.GetArtifactId()
	}
	fmt.Fprint(p.w, describeParts(art.GetParts()))
	p.midLine = true
	if u.GetLastChunk() {
		p.endLine()
	}
}

// close ends the output: the last line, the spinner.
func (p *streamPrinter) close() {
	if p.stop != nil {
		close(p.stop)
		<-p.stopped
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearSpinner()
	p.endLine()
}

// followStream prints every event of stream in the -o format and returns
// the last task state seen with the task id, or the stream's error.
func (a *app) followStream(stream iter.Seq2[*a2av1.StreamResponse, error]) (taskID string, last a2av1.TaskState, err error) {
	var printer *streamPrinter
	if a.output == "text" {
		printer = newStreamPrinter(a.env.stdout, a.env.terminal)
		defer printer.close()
	}
	for ev, err := range stream {
		if err != nil {
			return taskID, last, callError(err)
		}
		if id := ev.TaskID(); id != "" {
			taskID = id
		}
		if s := ev.State(); s != a2av1.TaskState_TASK_STATE_UNSPECIFIED {
			last = s
		}
		if printer != nil {
			printer.event(ev)
			continue
		}
		if err := a.emit(a.env.stdout, ev, nil); err != nil {
			return taskID, last, err
		}
	}
	return taskID, last, nil
}

// endedBadly is the error for a task whose final state is a failure.
func endedBadly(taskID string, s a2av1.TaskState) error {
	switch s {
	case a2av1.TaskState_TASK_STATE_FAILED, a2av1.TaskState_TASK_STATE_REJECTED, a2av1.TaskState_TASK_STATE_CANCELED:
		return taskEndedError{id: taskID, state: s.Short()}
	}
	return nil
}
