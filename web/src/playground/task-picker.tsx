import { useVirtualizer } from "@tanstack/react-virtual";
import { useDeferredValue, useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import type { TaskSummary } from "../../../src/server/api-schemas.js";
import { parseTelecomTaskId, taskLabel } from "../format.js";

/**
 * Searchable task list (virtualised: telecom has thousands). Arrow keys move, Home and End jump,
 * Page Up/Down move by ten; the selected task is kept in view, whoever selected it (a scenario chip,
 * a shared link). `tasks` may be the first pages of `total` while the rest load.
 */
export function TaskPicker(props: {
  tasks: readonly TaskSummary[];
  total: number;
  selected: string | null;
  onSelect: (id: string) => void;
}) {
  const [query, setQuery] = useState("");
  const deferred = useDeferredValue(query.trim().toLowerCase());
  const shown = useMemo(
    () =>
      deferred
        ? props.tasks.filter(
            (t) =>
              t.id.toLowerCase().includes(deferred) ||
              t.title.toLowerCase().includes(deferred) ||
              taskLabel(t.id, 1000).toLowerCase().includes(deferred),
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
  // Keep the selection in view when it changes (by keys, a chip, a link) or the list is filtered.
  useEffect(() => {
    if (selectedIndex >= 0) virtualizer.scrollToIndex(selectedIndex, { align: "auto" });
  }, [selectedIndex, virtualizer]);
  const moveTo = (index: number) => {
    if (shown.length === 0) return;
    const next = Math.max(0, Math.min(shown.length - 1, index));
    props.onSelect(shown[next]!.id);
  };
  const onKey = (event: KeyboardEvent) => {
    const from = selectedIndex < 0 ? -1 : selectedIndex;
    const keys: Record<string, () => void> = {
      ArrowDown: () => moveTo(from + 1),
      ArrowUp: () => moveTo(from - 1),
      PageDown: () => moveTo(from + 10),
      PageUp: () => moveTo(from - 10),
      Home: () => moveTo(0),
      End: () => moveTo(shown.length - 1),
    };
    // In the search box, Home and End move the caret.
    if (event.currentTarget instanceof HTMLInputElement && (event.key === "Home" || event.key === "End"))
      return;
    const action = keys[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  };
  return (
    <div className="task-picker">
      <label htmlFor="task-search">Task</label>
      <input
        id="task-search"
        type="search"
        placeholder={`Search ${props.total} tasks…`}
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
                title={`${task.id}\n${task.title}`}
              >
                {parseTelecomTaskId(task.id) ? (
                  // Telecom's titles are all alike: its id says what is wrong, on two lines.
                  <span className="task-id wrap">{taskLabel(task.id, 84)}</span>
                ) : (
                  <>
                    <span className="task-id">{taskLabel(task.id, 40)}</span>
                    <span className="task-title">{task.title}</span>
                  </>
                )}
              </div>
            );
          })}
        </div>
        {shown.length === 0 && props.tasks.length === props.total && (
          <p className="muted empty">No task matches.</p>
        )}
      </div>
      {props.tasks.length < props.total && (
        <p className="muted small" role="status" data-testid="tasks-loading">
          Loading tasks… {props.tasks.length} of {props.total}
        </p>
      )}
    </div>
  );
}
