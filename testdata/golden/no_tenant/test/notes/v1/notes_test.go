package notesv1_test

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"net/http/httptest"
	"slices"
	"testing"

	"google.golang.org/protobuf/types/known/emptypb"

	notesv1 "example.com/golden/no_tenant/notes/v1"
	"github.com/a2agen/a2agen/runtime"
)

// notes serves two rpcs and leaves the others to the embedded
// UnimplementedNoteServiceHandler.
type notes struct {
	notesv1.UnimplementedNoteServiceHandler
}

func (notes) GetNote(_ context.Context, req *notesv1.GetNoteRequest) (*notesv1.Note, error) {
	return &notesv1.Note{NoteId: req.GetNoteId(), Text: "text of " + req.GetNoteId()}, nil
}

func (notes) WatchNotes(_ context.Context, req *notesv1.WatchNotesRequest, stream runtime.Stream[*notesv1.NoteEvent]) error {
	for i := range 3 {
		ev := &notesv1.NoteEvent{Change: &notesv1.NoteEvent_DeletedNoteId{DeletedNoteId: fmt.Sprintf("%s/%d", req.GetFolder(), i)}}
		if err := stream.Send(ev); err != nil {
			return err
		}
	}
	return nil
}

func (notes) Ping(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	return new(emptypb.Empty), nil
}

// ImportNotes answers with every note it received, in order.
func (notes) ImportNotes(_ context.Context, reqs iter.Seq2[*notesv1.CreateNoteRequest, error]) (*notesv1.ListNotesResponse, error) {
	resp := &notesv1.ListNotesResponse{NextPageToken: "end"}
	for req, err := range reqs {
		if err != nil {
			return nil, err
		}
		resp.Notes = append(resp.Notes, req.GetNote())
	}
	return resp, nil
}

// TestGeneratedCodeOverJSONRPC drives the generated handler and client over
// a loopback JSON-RPC server.
func TestGeneratedCodeOverJSONRPC(t *testing.T) {
	srv := httptest.NewServer(notesv1.NewNoteServiceJSONRPCHandler(notes{}))
	defer srv.Close()
	c := notesv1.NewNoteServiceJSONRPCClient(srv.URL)
	ctx := context.Background()

	got, err := c.GetNote(ctx, &notesv1.GetNoteRequest{NoteId: "n1"})
	if err != nil || got.GetText() != "text of n1" {
		t.Fatalf("GetNote = %v, %v", got, err)
	}
	var events []string
	for ev, err := range c.WatchNotes(ctx, &notesv1.WatchNotesRequest{Folder: "folders/f"}) {
		if err != nil {
			t.Fatalf("WatchNotes: %v", err)
		}
		events = append(events, ev.GetDeletedNoteId())
	}
	if fmt.Sprint(events) != "[folders/f/0 folders/f/1 folders/f/2]" {
		t.Errorf("WatchNotes events = %v", events)
	}
	if _, err := c.Ping(ctx, new(emptypb.Empty)); err != nil {
		t.Errorf("Ping (no HTTP rule, JSON-RPC only): %v", err)
	}
	if _, err := c.ImportNotes(ctx, slices.Values([]*notesv1.CreateNoteRequest{{Note: &notesv1.Note{Text: "x"}}})); !errors.Is(err, runtime.ErrUnsupportedOperation) {
		t.Errorf("ImportNotes (client-streaming: gRPC only) over JSON-RPC: %v, want UnsupportedOperation", err)
	}
	if _, err := c.CreateNote(ctx, &notesv1.CreateNoteRequest{Note: &notesv1.Note{Text: "x"}}); !errors.Is(err, runtime.ErrUnsupportedOperation) {
		t.Errorf("CreateNote on the unimplemented handler: %v, want UnsupportedOperation", err)
	}
	// The router validates the REQUIRED fields the descriptors carry:
	// note_id, and Tag.name reached through a map value (before the
	// unimplemented handler is called).
	if _, err := c.GetNote(ctx, &notesv1.GetNoteRequest{}); !errors.Is(err, runtime.ErrInvalidParams) {
		t.Errorf("GetNote without note_id: %v, want InvalidParams", err)
	}
	_, err = c.CreateNote(ctx, &notesv1.CreateNoteRequest{Note: &notesv1.Note{Text: "x", Tags: map[string]*notesv1.Tag{"k": {}}}})
	var e *runtime.Error
	if !errors.As(err, &e) || e.Code() != runtime.CodeInvalidParams {
		t.Errorf("CreateNote with a nameless tag: %v, want InvalidParams", err)
	} else if got := fmt.Sprint(e.FieldViolations()); got != `[{note.tags["k"].name required}]` {
		t.Errorf("CreateNote with a nameless tag: violations %s, want note.tags[\"k\"].name", got)
	}
}

func TestServiceDescMatchesTheProto(t *testing.T) {
	d := notesv1.NoteServiceDesc
	if len(d.Operations) != 9 || d.Operation("Ping").HTTPRules != nil || !d.Operation("WatchNotes").ServerStreaming ||
		!d.Operation("ImportNotes").ClientStreaming || d.Operation("ImportNotes").ServerStreaming {
		t.Errorf("unexpected operations: %+v", d.Operations)
	}
}
