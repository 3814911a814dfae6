// Column descriptors: what can be shown, filtered and sorted for traces and spans.
import type { ColumnThreshold } from '../scorers/scorer';

export const NODE_TYPES = ['retriever', 'agent', 'session', 'control', 'tool', 'workflow', 'llm', 'trace'] as const;
export type NodeType = (typeof NODE_TYPES)[number];

export const SPAN_TYPES = ['retriever', 'agent', 'control', 'tool', 'workflow', 'llm'] as const;
export type SpanType = (typeof SPAN_TYPES)[number];

/** The roles an agent span may give its agent (the origin's AgentType). */
export const AGENT_TYPES = ['planner', 'classifier', 'reflection', 'react', 'supervisor', 'judge', 'default', 'router'] as const;
export type AgentType = (typeof AGENT_TYPES)[number];

/** When a control span's check ran: before or after the step it guards. */
export const CHECK_STAGES = ['pre', 'post'] as const;
export type CheckStage = (typeof CHECK_STAGES)[number];

/** What a control span's check guards. */
export const CONTROL_TARGETS = ['llm_call', 'tool_call'] as const;
export type ControlTarget = (typeof CONTROL_TARGETS)[number];

export type ColumnCategory = 'standard' | 'metric';
export type ColumnDataType = 'text' | 'timestamp' | 'string_list' | 'integer' | 'uuid' | 'boolean' | 'floating_point';
export type ColumnFilterType = 'text' | 'date' | 'collection' | 'number' | 'id' | 'boolean';

export interface ColumnDescriptor {
  readonly id: string;
  readonly label: string;
  readonly description: string;
  readonly category: ColumnCategory;
  readonly groupLabel: string;
  readonly dataType: ColumnDataType;
  readonly dataUnit?: string;
  readonly filterType: ColumnFilterType;
  readonly filterable: boolean;
  readonly sortable: boolean;
  readonly multiValued: boolean;
  readonly isEmpty: boolean;
  readonly isOptional: boolean;
  readonly applicableTypes: ReadonlyArray<NodeType>;
  readonly allowedValues?: ReadonlyArray<string>;
  readonly rollUpMethod?: string;
  readonly threshold?: ColumnThreshold;
}
