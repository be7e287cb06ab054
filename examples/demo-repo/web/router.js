// Minimal client-side router: maps URL paths to view functions.
export class Router {
  constructor() {
    this.routes = new Map();
  }

  add(path, view) {
    this.routes.set(path, view);
    return this;
  }

  resolve(path) {
    const view = this.routes.get(path);
    if (!view) {
      throw new Error(`no route for ${path}`);
    }
    return view();
  }
}

export const debounce = (fn, ms) => {
  let timer;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
};
