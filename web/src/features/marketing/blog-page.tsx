/** /blog — the blog is not written yet and says so. */
export default function BlogPage() {
  return (
    <div className="page-narrow blog">
      <p className="eyebrow">Blog launching soon</p>
      <h1 className="page__title">Stories are on their way.</h1>
    </div>
  );
}
