package a2av03

import (
	"encoding/json"
	"strconv"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/runtime"
)

// ListTasksResult is the body of the v0.3 HTTP+JSON GET /tasks (the
// official Go SDK's v0.3 layer; the v0.3.0 specification names the route
// and leaves the shape open, and JSON-RPC has no tasks/list).
type ListTasksResult struct {
	Tasks         []*Task `json:"tasks"`
	TotalSize     int32   `json:"totalSize"`
	PageSize      int32   `json:"pageSize"`
	NextPageToken string  `json:"nextPageToken"`
}

// decodeListTasks reads the query of GET /tasks: contextId, status (a v0.3
// state: an unknown word is InvalidParams naming status), pageSize,
// pageToken, historyLength, lastUpdatedAfter (RFC 3339) and
// includeArtifacts, camelCase or snake_case. The status may also be a v0.3
// proto name (TASK_STATE_WORKING). The answer's tasks are in the form of
// the path (pathForm).
func decodeListTasks(r *runtime.AdaptedRequest, req proto.Message) error {
	answerIn(r, pathForm(r), encodeListTasksPJ)
	get := func(name, snake string) string {
		if v := r.Query.Get(name); v != "" {
			return v
		}
		return r.Query.Get(snake)
	}
	out := &a2av1.ListTasksRequest{ContextId: get("contextId", "context_id"), PageToken: get("pageToken", "page_token")}
	if s := get("status", "status"); s != "" {
		if k, ok := pjStatesToKind[s]; ok {
			s = k // the proto name ProtoJSON clients send
		}
		st, err := StateToV1(s, "status")
		if err != nil {
			return err
		}
		out.Status = st
	}
	var err error
	if out.PageSize, err = queryInt32(r, "pageSize", "page_size"); err != nil {
		return err
	}
	if out.HistoryLength, err = queryInt32(r, "historyLength", "history_length"); err != nil {
		return err
	}
	if s := get("lastUpdatedAfter", "last_updated_after"); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return invalid("lastUpdatedAfter", "must be an RFC 3339 time, got "+strconv.Quote(s))
		}
		out.StatusTimestampAfter = timestamppb.New(t)
	}
	if s := get("includeArtifacts", "include_artifacts"); s != "" {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return invalid("includeArtifacts", "must be true or false, got "+strconv.Quote(s))
		}
		out.IncludeArtifacts = &b
	}
	proto.Merge(req, out)
	return nil
}

// listTasksFromV1 is the list of tasks in v0.3's shape.
func listTasksFromV1(l *a2av1.ListTasksResponse) (*ListTasksResult, error) {
	out := &ListTasksResult{Tasks: []*Task{}, TotalSize: l.GetTotalSize(), PageSize: l.GetPageSize(), NextPageToken: l.GetNextPageToken()}
	for _, t := range l.GetTasks() {
		v, err := TaskFromV1(t)
		if err != nil {
			return nil, err
		}
		out.Tasks = append(out.Tasks, v)
	}
	return out, nil
}

// The encodings of a list of tasks, in the JSON-RPC and ProtoJSON shapes.
var (
	encodeListTasks   = encodeWith(listTasksFromV1, marshalJSON[*ListTasksResult])
	encodeListTasksPJ = encodeWith(listTasksFromV1, marshalListTasksPJ)
)

// listTasksResultPJ is ListTasksResult with the tasks in ProtoJSON.
type listTasksResultPJ struct {
	Tasks         []*pjTask `json:"tasks"`
	TotalSize     int32     `json:"totalSize"`
	PageSize      int32     `json:"pageSize"`
	NextPageToken string    `json:"nextPageToken"`
}

func marshalListTasksPJ(r *ListTasksResult) ([]byte, error) {
	out := &listTasksResultPJ{Tasks: []*pjTask{}, TotalSize: r.TotalSize, PageSize: r.PageSize, NextPageToken: r.NextPageToken}
	for _, t := range r.Tasks {
		out.Tasks = append(out.Tasks, taskToPJ(t))
	}
	return json.Marshal(out)
}
