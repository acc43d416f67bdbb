package server_test

import (
	"errors"
	"fmt"
	"testing"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
	"github.com/a2agen/a2agen/server"
)

// TestPushConfigsPerTaskAreBounded: a task takes at most
// DefaultMaxPushConfigsPerTask configs, by Create and inline in a follow-up
// message; one more is InvalidRequest naming MaxPushConfigsPerTask, while
// replacing a config under its id still works (before, 5,000 configs turned
// one follow-up into 15,003 webhook requests).
func TestPushConfigsPerTaskAreBounded(t *testing.T) {
	e := newEnv(t, bindings[0], nil, nil)
	task := sendTask(t, e.c, "input")
	create := func(id string) error {
		_, err := e.c.CreateTaskPushNotificationConfig(ctxT(t), &a2av1.TaskPushNotificationConfig{TaskId: task.GetId(), Id: id, Url: "https://hooks.example/" + id})
		return err
	}
	for i := range server.DefaultMaxPushConfigsPerTask {
		if err := create(fmt.Sprintf("c%02d", i)); err != nil {
			t.Fatalf("config %d: %v", i, err)
		}
	}
	err := create("one-too-many")
	wantCode(t, "one config over the limit", err, runtime.ErrInvalidRequest)
	var re *runtime.Error
	if !errors.As(err, &re) || re.Metadata()["limit"] != "MaxPushConfigsPerTask" {
		t.Fatalf("%v does not name MaxPushConfigsPerTask", err)
	}
	if err := create("c03"); err != nil {
		t.Fatalf("replacing a config at the limit: %v", err)
	}
	msg := followUp("more", task.GetId())
	_, err = e.c.SendMessage(ctxT(t), &a2av1.SendMessageRequest{Message: msg, Configuration: &a2av1.SendMessageConfiguration{
		TaskPushNotificationConfig: &a2av1.TaskPushNotificationConfig{Id: "inline", Url: "https://hooks.example/inline"}}})
	wantCode(t, "an inline config over the limit", err, runtime.ErrInvalidRequest)
}
