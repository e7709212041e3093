// natural ships typings for its index only; these are the two modules Forager imports by path.
declare module 'natural/lib/natural/stemmers/porter_stemmer.js' {
  const stemmer: { stem(word: string): string };
  export default stemmer;
}
declare module 'natural/lib/natural/util/stopwords.js' {
  const list: { words: string[] };
  export default list;
}
