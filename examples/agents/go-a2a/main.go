// A customer-service agent in Go (standard library only), testable with passk over A2A.
//
// Written from passk's README ("Your agent, running elsewhere" → "A2A, step by step"): it serves an A2A
// agent card and A2A's JSON-RPC binding (v1.0 "SendMessage" and v0.3 "message/send", no streaming),
// keeps one conversation per A2A context, calls its model over an OpenAI-compatible Chat Completions
// endpoint and the conversation's tools over MCP (Streamable HTTP), and lets go of a context when passk
// marks the last message with metadata["passk/end"].
//
// Environment: OPENAI_BASE_URL (e.g. https://api.openai.com/v1), OPENAI_API_KEY, AGENT_MODEL.
// Usage: go run . [-host 127.0.0.1] [-port 9999]   (-port 0 picks a free port; the first line printed
// is the agent's URL), then: passk run --agent-llm a2a:<that URL> --user-llm <model> --domain airline
package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

const (
	maxSteps           = 30 // model calls per customer message
	mcpProtocolVersion = "2025-06-18"
	instructions       = "You are a customer service agent. Help the customer by following the policy below. " +
		"Use the tools to look things up and to act; never invent information.\n\n<policy>\n%s\n</policy>"
)

var (
	baseURL = strings.TrimRight(envOr("OPENAI_BASE_URL", "https://api.openai.com/v1"), "/")
	apiKey  = os.Getenv("OPENAI_API_KEY")
	model   = envOr("AGENT_MODEL", "gpt-4.1-mini")
	client  = &http.Client{Timeout: 300 * time.Second}
)

func envOr(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}

func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ---- MCP: JSON-RPC over Streamable HTTP, with the conversation's bearer token ----

type mcpClient struct {
	url, token string
	version    string // the MCP protocol version the server chose (sent back on later requests)
	mu         sync.Mutex
	nextID     int
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (c *mcpClient) post(body map[string]any) (json.RawMessage, error) {
	data, _ := json.Marshal(body)
	request, _ := http.NewRequest("POST", c.url, bytes.NewReader(data))
	request.Header.Set("Content-Type", "application/json")
	request.Header.Set("Accept", "application/json, text/event-stream")
	request.Header.Set("Authorization", "Bearer "+c.token)
	if c.version != "" {
		request.Header.Set("MCP-Protocol-Version", c.version)
	}
	response, err := client.Do(request)
	if err != nil {
		return nil, err
	}
	defer response.Body.Close()
	text, err := io.ReadAll(response.Body)
	if err != nil {
		return nil, err
	}
	if response.StatusCode >= 300 {
		return nil, fmt.Errorf("MCP answered %d: %s", response.StatusCode, text)
	}
	if _, isRequest := body["id"]; !isRequest {
		return nil, nil // a notification: no answer
	}
	if strings.HasPrefix(response.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(string(text), "\n") {
			if strings.HasPrefix(line, "data:") {
				text = []byte(strings.TrimSpace(line[5:]))
				break
			}
		}
	}
	var answer struct {
		Result json.RawMessage `json:"result"`
		Error  *rpcError       `json:"error"`
	}
	if err := json.Unmarshal(text, &answer); err != nil {
		return nil, fmt.Errorf("MCP answered something that is not JSON-RPC: %v", err)
	}
	if answer.Error != nil {
		return nil, errors.New(answer.Error.Message)
	}
	return answer.Result, nil
}

func (c *mcpClient) request(method string, params any) (json.RawMessage, error) {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.mu.Unlock()
	return c.post(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

type mcpTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

// initialize opens the MCP session and lists the conversation's tools.
func (c *mcpClient) initialize() ([]mcpTool, error) {
	result, err := c.request("initialize", map[string]any{
		"protocolVersion": mcpProtocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "go-a2a-example", "version": "1.0"},
	})
	if err != nil {
		return nil, err
	}
	var initialized struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(result, &initialized); err != nil {
		return nil, err
	}
	c.version = initialized.ProtocolVersion
	if _, err := c.post(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		return nil, err
	}
	result, err = c.request("tools/list", map[string]any{})
	if err != nil {
		return nil, err
	}
	var listed struct {
		Tools []mcpTool `json:"tools"`
	}
	err = json.Unmarshal(result, &listed)
	return listed.Tools, err
}

// callTool runs one tool; its text (or the error) goes back to the model either way.
func (c *mcpClient) callTool(name string, arguments json.RawMessage) string {
	result, err := c.request("tools/call", map[string]any{"name": name, "arguments": arguments})
	if err != nil {
		return "Error: " + err.Error()
	}
	var called struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(result, &called); err != nil {
		return "Error: " + err.Error()
	}
	texts := []string{}
	for _, part := range called.Content {
		if part.Type == "text" {
			texts = append(texts, part.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// ---- The model: OpenAI-compatible Chat Completions ----

type toolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type chatMessage struct {
	Role       string     `json:"role"`
	Content    *string    `json:"content"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

func text(s string) *string { return &s }

func chat(messages []chatMessage, tools []map[string]any) (chatMessage, error) {
	body := map[string]any{"model": model, "messages": messages, "temperature": 0}
	if len(tools) > 0 {
		body["tools"] = tools
	}
	data, _ := json.Marshal(body)
	request, _ := http.NewRequest("POST", baseURL+"/chat/completions", bytes.NewReader(data))
	request.Header.Set("Content-Type", "application/json")
	request.Header.Set("Authorization", "Bearer "+apiKey)
	response, err := client.Do(request)
	if err != nil {
		return chatMessage{}, err
	}
	defer response.Body.Close()
	raw, _ := io.ReadAll(response.Body)
	if response.StatusCode >= 300 {
		return chatMessage{}, fmt.Errorf("the model answered %d: %s", response.StatusCode, raw)
	}
	var completion struct {
		Choices []struct {
			Message chatMessage `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(raw, &completion); err != nil || len(completion.Choices) == 0 {
		return chatMessage{}, fmt.Errorf("the model answered no choice: %s", raw)
	}
	return completion.Choices[0].Message, nil
}

// ---- One conversation (one A2A context) ----

// historyItem is one message of metadata["passk/start"].history.
type historyItem struct {
	Role      string  `json:"role"`
	Content   *string `json:"content"`
	ID        string  `json:"id"`
	ToolCalls []struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"tool_calls"`
}

type conversation struct {
	mu       sync.Mutex
	mcp      *mcpClient
	tools    []map[string]any
	messages []chatMessage
}

func openConversation(policy string, history []historyItem, mcpURL, token string) (*conversation, error) {
	c := &conversation{mcp: &mcpClient{url: mcpURL, token: token}}
	tools, err := c.mcp.initialize()
	if err != nil {
		return nil, fmt.Errorf("MCP: %v", err)
	}
	for _, tool := range tools {
		c.tools = append(c.tools, map[string]any{"type": "function", "function": map[string]any{
			"name": tool.Name, "description": tool.Description, "parameters": tool.InputSchema,
		}})
	}
	c.messages = []chatMessage{{Role: "system", Content: text(fmt.Sprintf(instructions, policy))}}
	for _, item := range history {
		message := chatMessage{Role: item.Role, Content: item.Content}
		if item.Role == "tool" {
			message.ToolCallID = item.ID
		}
		for _, call := range item.ToolCalls {
			tc := toolCall{ID: call.ID, Type: "function"}
			tc.Function.Name = call.Name
			tc.Function.Arguments = string(call.Arguments)
			message.ToolCalls = append(message.ToolCalls, tc)
		}
		c.messages = append(c.messages, message)
	}
	return c, nil
}

// reply answers one customer message, calling tools over MCP as the model asks.
func (c *conversation) reply(said string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.messages = append(c.messages, chatMessage{Role: "user", Content: text(said)})
	for step := 0; step < maxSteps; step++ {
		message, err := chat(c.messages, c.tools)
		if err != nil {
			return "", err
		}
		c.messages = append(c.messages, chatMessage{Role: "assistant", Content: message.Content, ToolCalls: message.ToolCalls})
		if len(message.ToolCalls) == 0 {
			if message.Content == nil {
				return "", nil
			}
			return *message.Content, nil
		}
		for _, call := range message.ToolCalls {
			arguments := json.RawMessage(call.Function.Arguments)
			if len(arguments) == 0 {
				arguments = json.RawMessage("{}")
			}
			result := c.mcp.callTool(call.Function.Name, arguments)
			c.messages = append(c.messages, chatMessage{Role: "tool", Content: text(result), ToolCallID: call.ID})
		}
	}
	return "I am sorry, I could not finish that. Could you say it again?", nil
}

// ---- A2A: the agent card and the JSON-RPC binding ----

type server struct {
	url           string
	mu            sync.Mutex
	conversations map[string]*conversation
}

type a2aPart struct {
	Kind string `json:"kind,omitempty"` // v0.3 only
	Text string `json:"text"`
}

type a2aMessage struct {
	ContextID string                     `json:"contextId"`
	Parts     []a2aPart                  `json:"parts"`
	Metadata  map[string]json.RawMessage `json:"metadata"`
}

func (s *server) card() map[string]any {
	return map[string]any{
		"name":                "go-a2a-example",
		"description":         "A customer-service agent in Go, its tools over MCP.",
		"version":             "1.0.0",
		"supportedInterfaces": []map[string]any{{"url": s.url + "/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}},
		"capabilities":        map[string]any{"streaming": false},
		"defaultInputModes":   []string{"text/plain"},
		"defaultOutputModes":  []string{"text/plain"},
		"skills": []map[string]any{{
			"id": "customer-service", "name": "Customer service", "description": "Helps customers.", "tags": []string{},
		}},
	}
}

// answer handles one message and returns the agent's text and the context it belongs to.
func (s *server) answer(message a2aMessage) (string, string, error) {
	contextID := message.ContextID
	if _, over := message.Metadata["passk/end"]; over {
		s.mu.Lock()
		delete(s.conversations, contextID)
		s.mu.Unlock()
		return "Bye.", contextID, nil
	}
	if contextID == "" {
		contextID = newID() // the first message of a conversation: the agent names its context
	}
	s.mu.Lock()
	c := s.conversations[contextID]
	s.mu.Unlock()
	if c == nil {
		var access struct{ URL, Token string }
		var start struct {
			Policy  string        `json:"policy"`
			History []historyItem `json:"history"`
		}
		if err := json.Unmarshal(message.Metadata["passk/mcp"], &access); err != nil || access.URL == "" {
			return "", contextID, errors.New(`the first message must carry metadata["passk/mcp"] = { url, token }`)
		}
		if raw, ok := message.Metadata["passk/start"]; ok {
			if err := json.Unmarshal(raw, &start); err != nil {
				return "", contextID, fmt.Errorf(`metadata["passk/start"]: %v`, err)
			}
		}
		opened, err := openConversation(start.Policy, start.History, access.URL, access.Token)
		if err != nil {
			return "", contextID, err
		}
		s.mu.Lock()
		s.conversations[contextID] = opened
		s.mu.Unlock()
		c = opened
	}
	texts := []string{}
	for _, part := range message.Parts {
		if part.Text != "" {
			texts = append(texts, part.Text)
		}
	}
	reply, err := c.reply(strings.Join(texts, "\n"))
	return reply, contextID, err
}

func writeJSON(w http.ResponseWriter, status int, value any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(value)
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == "GET" && r.URL.Path == "/.well-known/agent-card.json" {
		writeJSON(w, 200, s.card())
		return
	}
	if r.Method != "POST" || r.URL.Path != "/" {
		writeJSON(w, 404, map[string]string{"error": "not found"})
		return
	}
	var request struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Message a2aMessage `json:"message"`
		} `json:"params"`
	}
	if err := json.NewDecoder(r.Body).Decode(&request); err != nil {
		writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": nil, "error": rpcError{-32700, "Parse error"}})
		return
	}
	legacy := request.Method == "message/send" // A2A v0.3
	if request.Method != "SendMessage" && !legacy {
		writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": request.ID, "error": rpcError{-32601, "Method not found"}})
		return
	}
	reply, contextID, err := s.answer(request.Params.Message)
	if err != nil {
		log.Printf("context %s: %v", contextID, err)
		writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": request.ID, "error": rpcError{-32603, err.Error()}})
		return
	}
	var result any
	if legacy {
		result = map[string]any{
			"kind": "message", "messageId": newID(), "contextId": contextID, "role": "agent",
			"parts": []a2aPart{{Kind: "text", Text: reply}},
		}
	} else {
		result = map[string]any{"message": map[string]any{
			"messageId": newID(), "contextId": contextID, "role": "ROLE_AGENT", "parts": []a2aPart{{Text: reply}},
		}}
	}
	writeJSON(w, 200, map[string]any{"jsonrpc": "2.0", "id": request.ID, "result": result})
}

func main() {
	host := flag.String("host", "127.0.0.1", "address to listen on")
	port := flag.Int("port", 9999, "port to listen on (0: any free port)")
	flag.Parse()
	listener, err := net.Listen("tcp", net.JoinHostPort(*host, fmt.Sprint(*port)))
	if err != nil {
		log.Fatal(err)
	}
	s := &server{
		url:           fmt.Sprintf("http://%s", listener.Addr().String()),
		conversations: map[string]*conversation{},
	}
	fmt.Println(s.url)
	log.Fatal(http.Serve(listener, s))
}
