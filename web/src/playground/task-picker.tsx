import { useVirtualizer } from "@tanstack/react-virtual";
import { useDeferredValue, useMemo, useRef, useState, type KeyboardEvent } from "react";
import type { TaskSummary } from "../../../src/server/api-schemas.js";

/** Searchable task list (virtualised: telecom has thousands), arrow keys to move, Enter to pick. */
export function TaskPicker(props: {
  tasks: readonly TaskSummary[];
  selected: string | null;
  onSelect: (id: string) => void;
}) {
  const [query, setQuery] = useState("");
  const deferred = useDeferredValue(query.trim().toLowerCase());
  const shown = useMemo(
    () =>
      deferred
        ? props.tasks.filter(
            (t) => t.id.toLowerCase().includes(deferred) || t.title.toLowerCase().includes(deferred),
          )
        : props.tasks,
    [props.tasks, deferred],
  );
  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => 52,
    overscan: 8,
  });
  const selectedIndex = shown.findIndex((t) => t.id === props.selected);
  const move = (delta: number) => {
    if (shown.length === 0) return;
    const next = Math.max(0, Math.min(shown.length - 1, (selectedIndex < 0 ? -1 : selectedIndex) + delta));
    props.onSelect(shown[next]!.id);
    virtualizer.scrollToIndex(next);
  };
  const onKey = (event: KeyboardEvent) => {
    if (event.key === "ArrowDown") {
      event.preventDefault();
      move(1);
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      move(-1);
    }
  };
  return (
    <div className="task-picker">
      <label htmlFor="task-search">Task</label>
      <input
        id="task-search"
        type="search"
        placeholder={`Search ${props.tasks.length} tasks…`}
        value={query}
        onChange={(e) => setQuery(e.target.value)}
        onKeyDown={onKey}
        aria-controls="task-list"
      />
      <div
        id="task-list"
        ref={scroller}
        className="task-list"
        role="listbox"
        aria-label="Tasks"
        tabIndex={0}
        onKeyDown={onKey}
        aria-activedescendant={selectedIndex >= 0 ? `task-option-${selectedIndex}` : undefined}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
          {virtualizer.getVirtualItems().map((item) => {
            const task = shown[item.index]!;
            const selected = task.id === props.selected;
            return (
              <div
                key={task.id}
                id={`task-option-${item.index}`}
                role="option"
                aria-selected={selected}
                className={`task-option${selected ? " selected" : ""}`}
                style={{
                  position: "absolute",
                  top: 0,
                  left: 0,
                  right: 0,
                  transform: `translateY(${item.start}px)`,
                  height: item.size,
                }}
                onClick={() => props.onSelect(task.id)}
                data-task-id={task.id}
              >
                <span className="task-id">{task.id}</span>
                <span className="task-title">{task.title}</span>
              </div>
            );
          })}
        </div>
        {shown.length === 0 && <p className="muted empty">No task matches.</p>}
      </div>
    </div>
  );
}
