/** Fixture: the composition root (a leaf here, so that only the importers break rules). */
export interface AppDeps {
  name: string;
}
