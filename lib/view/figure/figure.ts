// A Plotly figure as the view builds it: plain data (traces, layout, config), drawn by plot.ts.
export interface Axis {
  title?: string | { text: string };
  type?: "linear" | "log" | "category";
  [key: string]: unknown;
}

export interface Figure {
  data: Array<Record<string, unknown>>;
  layout?: { title?: string | { text: string }; xaxis?: Axis; yaxis?: Axis; [key: string]: unknown };
  config?: Record<string, unknown>;
}
