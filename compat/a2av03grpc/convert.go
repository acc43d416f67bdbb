package a2av03grpc

import (
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/a2agen/a2agen/a2a/v03"
	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/compat/a2av03"
)

// The enums have the same numbers in both protos (v0.3 spells 5
// TASK_STATE_CANCELLED, v1.0 TASK_STATE_CANCELED); values unknown to either
// pass through as numbers, as protobuf keeps them.

// StateToV1 converts a task state.
func StateToV1(s a2av03pb.TaskState) a2av1.TaskState { return a2av1.TaskState(s) }

// StateFromV1 converts a task state.
func StateFromV1(s a2av1.TaskState) a2av03pb.TaskState { return a2av03pb.TaskState(s) }

// PartToV1 converts a part. A data part's object becomes a v1.0 Value
// holding it; a part without content stays without content (the server
// refuses it as it refuses such a v1.0 part).
func PartToV1(p *a2av03pb.Part) *a2av1.Part {
	if p == nil {
		return nil
	}
	out := new(a2av1.Part)
	switch c := p.GetPart().(type) {
	case *a2av03pb.Part_Text:
		out.Content = &a2av1.Part_Text{Text: c.Text}
	case *a2av03pb.Part_File:
		out.MediaType = c.File.GetMimeType()
		switch f := c.File.GetFile().(type) {
		case *a2av03pb.FilePart_FileWithUri:
			out.Content = &a2av1.Part_Url{Url: f.FileWithUri}
		case *a2av03pb.FilePart_FileWithBytes:
			out.Content = &a2av1.Part_Raw{Raw: f.FileWithBytes}
		}
	case *a2av03pb.Part_Data:
		s := c.Data.GetData()
		if s == nil {
			s = &structpb.Struct{}
		}
		out.Content = &a2av1.Part_Data{Data: structpb.NewStructValue(s)}
	}
	return out
}

// PartFromV1 converts a part. Data that is not an object is wrapped as
// {"value": …}; a part's metadata and the filename have no v0.3 proto
// field and are dropped (Lossy).
func PartFromV1(p *a2av1.Part) *a2av03pb.Part {
	if p == nil {
		return nil
	}
	out := new(a2av03pb.Part)
	switch c := p.GetContent().(type) {
	case *a2av1.Part_Text:
		out.Part = &a2av03pb.Part_Text{Text: c.Text}
	case *a2av1.Part_Raw:
		out.Part = &a2av03pb.Part_File{File: &a2av03pb.FilePart{MimeType: p.GetMediaType(), File: &a2av03pb.FilePart_FileWithBytes{FileWithBytes: c.Raw}}}
	case *a2av1.Part_Url:
		out.Part = &a2av03pb.Part_File{File: &a2av03pb.FilePart{MimeType: p.GetMediaType(), File: &a2av03pb.FilePart_FileWithUri{FileWithUri: c.Url}}}
	case *a2av1.Part_Data:
		s := c.Data.GetStructValue()
		if s == nil {
			s = &structpb.Struct{Fields: map[string]*structpb.Value{"value": c.Data}}
		}
		out.Part = &a2av03pb.Part_Data{Data: &a2av03pb.DataPart{Data: s}}
	}
	return out
}

func convertAll[T, U any](in []T, f func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

// MessageToV1 converts a message.
func MessageToV1(m *a2av03pb.Message) *a2av1.Message {
	if m == nil {
		return nil
	}
	return &a2av1.Message{MessageId: m.GetMessageId(), ContextId: m.GetContextId(), TaskId: m.GetTaskId(),
		Role: a2av1.Role(m.GetRole()), Parts: convertAll(m.GetContent(), PartToV1), Metadata: m.GetMetadata(),
		Extensions: m.GetExtensions()}
}

// MessageFromV1 converts a message; referenceTaskIds have no v0.3 proto
// field (Lossy).
func MessageFromV1(m *a2av1.Message) *a2av03pb.Message {
	if m == nil {
		return nil
	}
	return &a2av03pb.Message{MessageId: m.GetMessageId(), ContextId: m.GetContextId(), TaskId: m.GetTaskId(),
		Role: a2av03pb.Role(m.GetRole()), Content: convertAll(m.GetParts(), PartFromV1), Metadata: m.GetMetadata(),
		Extensions: m.GetExtensions()}
}

// StatusToV1 converts a task status.
func StatusToV1(s *a2av03pb.TaskStatus) *a2av1.TaskStatus {
	if s == nil {
		return nil
	}
	return &a2av1.TaskStatus{State: StateToV1(s.GetState()), Message: MessageToV1(s.GetUpdate()), Timestamp: s.GetTimestamp()}
}

// StatusFromV1 converts a task status.
func StatusFromV1(s *a2av1.TaskStatus) *a2av03pb.TaskStatus {
	if s == nil {
		return nil
	}
	return &a2av03pb.TaskStatus{State: StateFromV1(s.GetState()), Update: MessageFromV1(s.GetMessage()), Timestamp: s.GetTimestamp()}
}

// ArtifactToV1 converts an artifact.
func ArtifactToV1(a *a2av03pb.Artifact) *a2av1.Artifact {
	if a == nil {
		return nil
	}
	return &a2av1.Artifact{ArtifactId: a.GetArtifactId(), Name: a.GetName(), Description: a.GetDescription(),
		Parts: convertAll(a.GetParts(), PartToV1), Metadata: a.GetMetadata(), Extensions: a.GetExtensions()}
}

// ArtifactFromV1 converts an artifact.
func ArtifactFromV1(a *a2av1.Artifact) *a2av03pb.Artifact {
	if a == nil {
		return nil
	}
	return &a2av03pb.Artifact{ArtifactId: a.GetArtifactId(), Name: a.GetName(), Description: a.GetDescription(),
		Parts: convertAll(a.GetParts(), PartFromV1), Metadata: a.GetMetadata(), Extensions: a.GetExtensions()}
}

// TaskToV1 converts a task.
func TaskToV1(t *a2av03pb.Task) *a2av1.Task {
	if t == nil {
		return nil
	}
	return &a2av1.Task{Id: t.GetId(), ContextId: t.GetContextId(), Status: StatusToV1(t.GetStatus()),
		Artifacts: convertAll(t.GetArtifacts(), ArtifactToV1), History: convertAll(t.GetHistory(), MessageToV1),
		Metadata: t.GetMetadata()}
}

// TaskFromV1 converts a task.
func TaskFromV1(t *a2av1.Task) *a2av03pb.Task {
	if t == nil {
		return nil
	}
	return &a2av03pb.Task{Id: t.GetId(), ContextId: t.GetContextId(), Status: StatusFromV1(t.GetStatus()),
		Artifacts: convertAll(t.GetArtifacts(), ArtifactFromV1), History: convertAll(t.GetHistory(), MessageFromV1),
		Metadata: t.GetMetadata()}
}

// StatusUpdateToV1 converts a status update; final is dropped (a v1.0
// stream's end says it).
func StatusUpdateToV1(e *a2av03pb.TaskStatusUpdateEvent) *a2av1.TaskStatusUpdateEvent {
	if e == nil {
		return nil
	}
	return &a2av1.TaskStatusUpdateEvent{TaskId: e.GetTaskId(), ContextId: e.GetContextId(),
		Status: StatusToV1(e.GetStatus()), Metadata: e.GetMetadata()}
}

// StatusUpdateFromV1 converts a status update; final is true for a
// terminal or interrupted state (compat/a2av03.Final), the states after
// which a v1.0 stream ends.
func StatusUpdateFromV1(e *a2av1.TaskStatusUpdateEvent) *a2av03pb.TaskStatusUpdateEvent {
	if e == nil {
		return nil
	}
	return &a2av03pb.TaskStatusUpdateEvent{TaskId: e.GetTaskId(), ContextId: e.GetContextId(),
		Status: StatusFromV1(e.GetStatus()), Final: a2av03.Final(e.GetStatus().GetState()), Metadata: e.GetMetadata()}
}

// ArtifactUpdateToV1 converts an artifact update.
func ArtifactUpdateToV1(e *a2av03pb.TaskArtifactUpdateEvent) *a2av1.TaskArtifactUpdateEvent {
	if e == nil {
		return nil
	}
	return &a2av1.TaskArtifactUpdateEvent{TaskId: e.GetTaskId(), ContextId: e.GetContextId(),
		Artifact: ArtifactToV1(e.GetArtifact()), Append: e.GetAppend(), LastChunk: e.GetLastChunk(), Metadata: e.GetMetadata()}
}

// ArtifactUpdateFromV1 converts an artifact update.
func ArtifactUpdateFromV1(e *a2av1.TaskArtifactUpdateEvent) *a2av03pb.TaskArtifactUpdateEvent {
	if e == nil {
		return nil
	}
	return &a2av03pb.TaskArtifactUpdateEvent{TaskId: e.GetTaskId(), ContextId: e.GetContextId(),
		Artifact: ArtifactFromV1(e.GetArtifact()), Append: e.GetAppend(), LastChunk: e.GetLastChunk(), Metadata: e.GetMetadata()}
}

// SendResponseToV1 converts SendMessage's answer.
func SendResponseToV1(r *a2av03pb.SendMessageResponse) *a2av1.SendMessageResponse {
	out := new(a2av1.SendMessageResponse)
	switch p := r.GetPayload().(type) {
	case *a2av03pb.SendMessageResponse_Task:
		out.Payload = &a2av1.SendMessageResponse_Task{Task: TaskToV1(p.Task)}
	case *a2av03pb.SendMessageResponse_Msg:
		out.Payload = &a2av1.SendMessageResponse_Message{Message: MessageToV1(p.Msg)}
	}
	return out
}

// SendResponseFromV1 converts SendMessage's answer.
func SendResponseFromV1(r *a2av1.SendMessageResponse) *a2av03pb.SendMessageResponse {
	out := new(a2av03pb.SendMessageResponse)
	switch p := r.GetPayload().(type) {
	case *a2av1.SendMessageResponse_Task:
		out.Payload = &a2av03pb.SendMessageResponse_Task{Task: TaskFromV1(p.Task)}
	case *a2av1.SendMessageResponse_Message:
		out.Payload = &a2av03pb.SendMessageResponse_Msg{Msg: MessageFromV1(p.Message)}
	}
	return out
}

// StreamResponseToV1 converts a stream event.
func StreamResponseToV1(r *a2av03pb.StreamResponse) *a2av1.StreamResponse {
	out := new(a2av1.StreamResponse)
	switch p := r.GetPayload().(type) {
	case *a2av03pb.StreamResponse_Task:
		out.Payload = &a2av1.StreamResponse_Task{Task: TaskToV1(p.Task)}
	case *a2av03pb.StreamResponse_Msg:
		out.Payload = &a2av1.StreamResponse_Message{Message: MessageToV1(p.Msg)}
	case *a2av03pb.StreamResponse_StatusUpdate:
		out.Payload = &a2av1.StreamResponse_StatusUpdate{StatusUpdate: StatusUpdateToV1(p.StatusUpdate)}
	case *a2av03pb.StreamResponse_ArtifactUpdate:
		out.Payload = &a2av1.StreamResponse_ArtifactUpdate{ArtifactUpdate: ArtifactUpdateToV1(p.ArtifactUpdate)}
	}
	return out
}

// StreamResponseFromV1 converts a stream event.
func StreamResponseFromV1(r *a2av1.StreamResponse) *a2av03pb.StreamResponse {
	out := new(a2av03pb.StreamResponse)
	switch p := r.GetPayload().(type) {
	case *a2av1.StreamResponse_Task:
		out.Payload = &a2av03pb.StreamResponse_Task{Task: TaskFromV1(p.Task)}
	case *a2av1.StreamResponse_Message:
		out.Payload = &a2av03pb.StreamResponse_Msg{Msg: MessageFromV1(p.Message)}
	case *a2av1.StreamResponse_StatusUpdate:
		out.Payload = &a2av03pb.StreamResponse_StatusUpdate{StatusUpdate: StatusUpdateFromV1(p.StatusUpdate)}
	case *a2av1.StreamResponse_ArtifactUpdate:
		out.Payload = &a2av03pb.StreamResponse_ArtifactUpdate{ArtifactUpdate: ArtifactUpdateFromV1(p.ArtifactUpdate)}
	}
	return out
}
