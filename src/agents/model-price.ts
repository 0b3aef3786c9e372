/** USD per million tokens: fresh input, cache hits (reads) and output. */
export interface ModelPrice {
  input: number;
  cacheRead: number;
  output: number;
}

/** A model's price as a forecast (or a backend that reports tokens only) uses it. */
export interface PricedModel {
  /** The row that matched (`Claude Sonnet 5.5`), or the backend's word for a model its table does not know. */
  label: string;
  price: ModelPrice;
  /** The table does not know the model: a forecast of it is a guess twice over. */
  unknown: boolean;
}
