/** Fixture: a file private to module x. */
export interface Secret {
  value: string;
}
