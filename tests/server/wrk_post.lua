-- wrk script: POST decision requests to /v1/systemone, cycling through a few shapes.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local bodies = {
  '{"state": "I was charged twice for my order. Please refund the duplicate today.", "questions": {"refund": {"type": "noul", "instructions": "Does the customer ask for a refund?"}}}',
  '{"state": "The server room is at 41 degrees and two fans have stopped.", "questions": {"team": {"type": "choice", "instructions": "Which team should handle this?", "criteria": {"facilities": "buildings, cooling, power", "it": "servers and networks", "hr": null}}, "urgency": {"type": "score", "instructions": "How urgent is it?", "criteria": ["not urgent", "soon", "today", "right now"]}}}',
  '{"state": ["user: hi", "agent: hello, how can I help?", "user: cancel my plan please"], "questions": {"intent": {"type": "choice", "instructions": "What does the user want?", "criteria": ["cancel", "upgrade", "question", "complaint"]}}}',
}
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, nil, nil, bodies[(n % #bodies) + 1])
end
